import {
  baseUrlProblem,
  isProviderName,
  keyEnvProblem,
  type OptionsProblem,
  PROVIDER_NAMES,
  providerOptionProblems,
  type ProviderAccess,
} from '../../../agent';
import { badInput } from '../../../common/refusal';

/** The most a JSON input value (provider options) may weigh, serialised (docs/security.md). */
export const MAX_JSON_INPUT_BYTES = 64 * 1024;

/** The serialised size of a JSON value in bytes (UTF-8). */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

/**
 * Refuses a JSON input value heavier than `MAX_JSON_INPUT_BYTES` once serialised.
 *
 * @throws Refusal BAD_USER_INPUT naming the field, its size and the limit.
 */
export function assertJsonSize(value: unknown, field: string, limit: number = MAX_JSON_INPUT_BYTES): void {
  const bytes = jsonByteLength(value);
  if (bytes > limit) {
    throw badInput(`${field} is too large: ${bytes} bytes serialised, at most ${limit}`, {
      field,
      bytes,
      limit,
    });
  }
}

/** Where openai options leave what the access settings allow (the key variable, the URL). */
function accessProblems(value: Record<string, unknown>, access: ProviderAccess): OptionsProblem[] {
  const problems: OptionsProblem[] = [];
  const { apiKeyEnv, baseUrl } = value;
  if (typeof apiKeyEnv === 'string') {
    const refused = keyEnvProblem(apiKeyEnv, access);
    if (refused) problems.push({ path: '/apiKeyEnv', message: refused });
  }
  if (typeof baseUrl === 'string') {
    const refused = baseUrlProblem(baseUrl, access);
    if (refused) problems.push({ path: '/baseUrl', message: refused });
  }
  return problems;
}

/**
 * Checks a configuration's provider and its options before anything is written: the provider
 * must be known, the options a JSON object of at most 64 KB serialised that fits the
 * provider's schema (scripted: `{rounds: [...]}`; openai: `{baseUrl, apiKeyEnv?, temperature?}`,
 * where `apiKeyEnv` is the NAME of an environment variable, never a key, and not one of the
 * server's own secrets). For openai, `access` also decides: `apiKeyEnv` must be a variable meant
 * for provider keys (the prefix setting, or the explicit list) and `baseUrl` within the allowed
 * provider URLs when that setting lists any. Missing options count as `{}`. Returns the options
 * to store.
 *
 * @throws Refusal BAD_USER_INPUT for an unknown provider, options too large, or options that do
 *   not fit; `details.problems` lists every failing path (JSON pointers into the options).
 */
export function validateProviderOptions(
  provider: string,
  options: unknown,
  access: ProviderAccess,
): Record<string, unknown> {
  if (!isProviderName(provider)) {
    throw badInput(`Unknown provider "${provider}"; known: ${PROVIDER_NAMES.join(', ')}`, {
      field: 'provider',
    });
  }
  const value = options ?? {};
  assertJsonSize(value, 'providerOptions');
  // why: the provider's own schema (src/agent/providers), which a run checks again when it
  // builds the provider: what is accepted here is what a run can use.
  const problems: OptionsProblem[] = providerOptionProblems(provider, value);
  if (provider === 'openai') problems.push(...accessProblems(value as Record<string, unknown>, access));
  if (problems.length > 0) {
    const shown = problems.slice(0, 20);
    const list = shown.map((p) => `${p.path} ${p.message}`).join('; ');
    throw badInput(`providerOptions do not fit provider "${provider}": ${list}`, {
      field: 'providerOptions',
      problems: shown,
    });
  }
  return value as Record<string, unknown>;
}
