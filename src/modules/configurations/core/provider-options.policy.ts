import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { baseUrlProblem, keyEnvProblem, type ProviderAccess } from '../../../agent';
import { badInput } from '../../../common/refusal';

/** The providers a configuration may name (src/agent/providers). */
export const PROVIDERS = ['scripted', 'openai'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** The most a JSON input value (provider options) may weigh, serialised (docs/security.md). */
export const MAX_JSON_INPUT_BYTES = 64 * 1024;

/**
 * Environment variables an `openai` configuration may not name as its key: the server's own
 * secrets. Without this an admin could send them to any `baseUrl` as a bearer token.
 */
export const RESERVED_ENV_NAMES: ReadonlySet<string> = new Set([
  'STATE_ENCRYPTION_KEY',
  'DATABASE_URL',
  'REDIS_URL',
]);

/** One problem found in provider options: a JSON pointer into the options and what is wrong. */
export interface OptionsProblem {
  readonly path: string;
  readonly message: string;
}

const HOUR_MS = 3_600_000;

/**
 * The scripted provider's script (docs/run-lifecycle.md, "Providers"): the n-th provider call of a
 * run answers with `rounds[n-1]`. Unknown keys are refused so a typo (`toolcalls`) cannot
 * silently turn a round into an empty one. Extend this schema when the script language grows.
 */
export const SCRIPTED_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['rounds'],
  properties: {
    rounds: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          text: { type: 'string' },
          toolCalls: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'arguments'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 100 },
                arguments: { type: 'object' },
              },
            },
          },
          delayMs: { type: 'number', minimum: 0, maximum: HOUR_MS },
          chunks: { type: 'integer', minimum: 1, maximum: 10_000 },
          chunkDelayMs: { type: 'number', minimum: 0, maximum: HOUR_MS },
          // the tokens this round reports (a stand-in for a real provider's usage)
          usage: {
            type: 'object',
            additionalProperties: false,
            required: ['inputTokens', 'outputTokens'],
            properties: {
              inputTokens: { type: 'integer', minimum: 0, maximum: 100_000_000 },
              outputTokens: { type: 'integer', minimum: 0, maximum: 100_000_000 },
            },
          },
        },
      },
    },
  },
} as const;

/** An OpenAI-compatible endpoint. The key is never stored: `apiKeyEnv` names the variable. */
export const OPENAI_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['baseUrl'],
  properties: {
    baseUrl: { type: 'string', maxLength: 2_000, format: 'http-url' },
    apiKeyEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    maxTokens: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    timeoutMs: { type: 'integer', minimum: 1_000, maximum: 3_600_000 },
  },
} as const;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });
const VALIDATORS: Record<ProviderName, ValidateFunction> = {
  scripted: ajv.compile(SCRIPTED_OPTIONS_SCHEMA),
  openai: ajv.compile(OPENAI_OPTIONS_SCHEMA),
};

export function isProvider(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}

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
    const refused = RESERVED_ENV_NAMES.has(apiKeyEnv)
      ? 'names a secret of the server itself'
      : keyEnvProblem(apiKeyEnv, access);
    if (refused) problems.push({ path: '/apiKeyEnv', message: refused });
  }
  if (typeof baseUrl === 'string') {
    const refused = baseUrlProblem(baseUrl, access);
    if (refused) problems.push({ path: '/baseUrl', message: refused });
  }
  return problems;
}

function toProblem(e: ErrorObject): OptionsProblem {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (e.keyword === 'required' && params.missingProperty) {
    return { path: `${e.instancePath}/${params.missingProperty}`, message: 'is required' };
  }
  if (e.keyword === 'additionalProperties' && params.additionalProperty) {
    return { path: `${e.instancePath}/${params.additionalProperty}`, message: 'is not allowed here' };
  }
  if (e.keyword === 'format') return { path: e.instancePath, message: 'must be an http(s) URL' };
  return { path: e.instancePath === '' ? '/' : e.instancePath, message: e.message ?? 'is invalid' };
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
  if (!isProvider(provider)) {
    throw badInput(`Unknown provider "${provider}"; known: ${PROVIDERS.join(', ')}`, { field: 'provider' });
  }
  const value = options ?? {};
  assertJsonSize(value, 'providerOptions');
  const validate = VALIDATORS[provider];
  const problems: OptionsProblem[] = validate(value) ? [] : (validate.errors ?? []).map(toProblem);
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
