import { OpenAiProvider, type SecretResolver } from './openai';
import type { Provider } from './provider';
import type { ProviderAccess } from './provider-access';
import { isProviderName, PROVIDER_NAMES, providerOptionProblems } from './provider-options';
import { ScriptedProvider, type ScriptedOptions } from './scripted';

/** The provider part of a configuration. */
export interface ProviderConfig {
  /** `scripted` or `openai`. */
  readonly provider: string;
  readonly model: string;
  readonly providerOptions?: unknown;
  /** Reads the API key variable that `providerOptions.apiKeyEnv` names. */
  readonly secret: SecretResolver;
  /** Which key variables and base URLs the provider may use (checked at every call). */
  readonly access: ProviderAccess;
}

/** A configuration whose provider part cannot be used. */
export class ProviderConfigError extends Error {
  readonly code = 'PROVIDER_CONFIG' as const;

  constructor(readonly problems: readonly string[]) {
    super(`Invalid provider configuration: ${problems.join('; ')}`);
    this.name = 'ProviderConfigError';
  }
}

/**
 * Problems with a configuration's provider and options (empty when usable); the
 * configurations module can refuse an upsert with them (BAD_USER_INPUT).
 */
export function providerConfigProblems(provider: string, providerOptions: unknown): string[] {
  if (!isProviderName(provider)) {
    return [`unknown provider "${provider}" (known: ${PROVIDER_NAMES.join(', ')})`];
  }
  // why: a scripted configuration without options plays an empty script.
  const options = providerOptions ?? (provider === 'scripted' ? { rounds: [] } : {});
  return providerOptionProblems(provider, options).map((p) => `${p.path} ${p.message}`);
}

/** Builds the provider a configuration names; throws `ProviderConfigError` when unusable. */
export function createProvider(config: ProviderConfig): Provider {
  const problems = providerConfigProblems(config.provider, config.providerOptions);
  if (problems.length > 0) throw new ProviderConfigError(problems);
  if (config.provider === 'scripted') {
    return new ScriptedProvider((config.providerOptions ?? { rounds: [] }) as ScriptedOptions);
  }
  return new OpenAiProvider(config.model, config.providerOptions ?? {}, config.secret, config.access);
}
