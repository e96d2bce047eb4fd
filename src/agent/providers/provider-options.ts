import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

/** The providers a configuration may name. */
export const PROVIDER_NAMES = ['scripted', 'openai'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** One problem found in provider options: a JSON pointer into the options and what is wrong. */
export interface OptionsProblem {
  readonly path: string;
  readonly message: string;
}

const HOUR_MS = 3_600_000;

/**
 * The scripted provider's script (docs/run-lifecycle.md, "Providers"): the n-th provider call of
 * a run answers with `rounds[n-1]`. Unknown keys are refused so a typo (`toolcalls`) cannot
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
          // the call fails with this message, after streaming `text` (a provider that breaks)
          error: { type: 'string', maxLength: 2_000 },
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
    // the longest silence of the provider (before the first byte, between chunks)
    timeoutMs: { type: 'integer', minimum: 1_000, maximum: HOUR_MS },
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

// why: one compiled check per provider for both the configuration's upsert and the provider
// built from it at run time, so what an upsert accepted is what a run can use.
const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });
const VALIDATORS: Record<ProviderName, ValidateFunction> = {
  scripted: ajv.compile(SCRIPTED_OPTIONS_SCHEMA),
  openai: ajv.compile(OPENAI_OPTIONS_SCHEMA),
};

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

/** Where a provider's options leave its schema (empty when they fit). */
export function providerOptionProblems(provider: ProviderName, options: unknown): OptionsProblem[] {
  const validate = VALIDATORS[provider];
  return validate(options) ? [] : (validate.errors ?? []).map(toProblem);
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
