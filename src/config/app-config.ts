import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { resolve } from 'node:path';
import {
  DEFAULT_PROVIDER_KEY_PREFIX,
  keyEnvProblem,
  type ProviderAccess,
  SERVER_SECRET_ENV_NAMES,
} from '../agent/providers/provider-access';
import { EnvSchema } from './env.schema';
import { stateKeyWeakness, weakStateKeyMessage } from './state-key-quality';

export type DecisionPathSetting = 'inline' | 'durable' | 'auto';

/** The typed, validated configuration every part of the server reads. */
/** How long finished runs keep their steps and themselves, and how the sweep works. */
export interface RetentionSettings {
  readonly stepsAfterSeconds: number | null;
  readonly runsAfterSeconds: number | null;
  readonly intervalSeconds: number;
  readonly batchRuns: number;
}

/** Sign-in through the organisation's identity provider (docs/security.md). */
export interface OidcSettings {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly allowedAlgorithms: readonly string[];
  readonly groupsClaim: string;
  readonly autoCreateUsers: boolean;
  readonly clockSkewSeconds: number;
  /** The reference web client's (public) client id at the provider; null: it offers tokens only. */
  readonly webClientId: string | null;
  readonly webScope: string;
}

/** Webhooks (docs/webhooks.md, docs/operations.md "Webhooks"). */
export interface WebhookSettings {
  readonly allowPrivateNetworks: boolean;
  readonly timeoutMs: number;
  readonly retryBaseMs: number;
  readonly retryMaxDelayMs: number;
  readonly retryWindowSeconds: number;
  readonly pollMs: number;
  /** The client's origin for links in payloads; null: payloads carry no link. */
  readonly publicClientUrl: string | null;
}

export interface AppConfig {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  /** Null: the embedded PostgreSQL (PGlite) under `dataDir`. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly migrate: boolean;
  readonly seedDemo: boolean;
  readonly redisUrl: string | null;
  /** Base64 of 32 bytes; null means "generate into dataDir" (embedded mode only). */
  readonly stateEncryptionKey: string | null;
  readonly introspection: boolean;
  readonly corsOrigins: readonly string[];
  readonly rateLimitPerMinute: number;
  readonly logLevel: string;
  /** `LOG_FORMAT`; null: readable lines on a terminal outside production, JSON otherwise. */
  readonly logFormat: 'pretty' | 'json' | null;
  /** `GET /metrics` is served (Prometheus text); default true. */
  readonly metricsEnabled: boolean;
  /** When set, `/metrics` answers only `Authorization: Bearer <this>`. */
  readonly metricsToken: string | null;
  readonly runLeaseSeconds: number;
  readonly reaperIntervalSeconds: number;
  /** Retention (docs/operations.md): null keeps forever. */
  readonly retention: RetentionSettings;
  readonly maxIterationsCeiling: number;
  readonly progressKeepAliveSeconds: number;
  /** Text deltas of one answer produced within this window go out as one event. */
  readonly textDeltaCoalesceMs: number;
  readonly decisionPath: DecisionPathSetting;
  readonly decisionPickupSeconds: number;
  /** The expiry sweep (docs/operations.md): how often, and how many runs a pass settles at most. */
  readonly approvalExpiry: { readonly intervalSeconds: number; readonly batch: number };
  readonly workerConcurrency: number;
  /** Runs the worker claims ahead of its free slots, to start as soon as one frees (0: none). */
  readonly workerPrefetch: number;
  readonly workerLivenessSeconds: number;
  /** The in-process worker (queued-run pickup and the reaper) runs; default true. */
  readonly workerEnabled: boolean;
  readonly chatMaxActiveConversations: number;
  /** Runs not yet finished one user may have; a start past it is TOO_MANY_WAITING_RUNS. */
  readonly runsMaxWaitingPerUser: number;
  /** Run starts per user per minute; past it RATE_LIMITED. */
  readonly runStartsPerMinute: number;
  readonly wsMaxPayloadBytes: number;
  readonly wsConnectionInitTimeoutSeconds: number;
  readonly wsMaxSubscriptionsPerConnection: number;
  readonly wsMaxConnectionsPerUser: number;
  readonly wsKeepAliveSeconds: number;
  readonly wsMaxBufferedBytes: number;
  readonly authFailuresPerMinute: number;
  readonly webhooks: WebhookSettings;
  /** Null: no identity provider, personal access tokens only. */
  readonly oidc: OidcSettings | null;
  /** Which variables provider configurations may name as keys, and which URLs they may reach. */
  readonly providerAccess: ProviderAccess;
  /** Reads a secret (a provider API key) from the environment by name; never stored. */
  readonly secret: (name: string) => string | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment and builds the configuration. Throws a `ConfigError` whose message
 * names every bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const raw = plainToInstance(EnvSchema, { ...env }, { enableImplicitConversion: false });
  const errors = validateSync(raw, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`),
    );
  }
  const databaseUrl = raw.DATABASE_URL ?? null;
  const embedded = databaseUrl === null;
  const nodeEnv = (raw.NODE_ENV ?? 'development') as AppConfig['nodeEnv'];
  if (!embedded && !raw.STATE_ENCRYPTION_KEY && nodeEnv === 'production') {
    throw new ConfigError([
      'STATE_ENCRYPTION_KEY: required with DATABASE_URL in production (32 bytes, base64); generate one with `openssl rand -base64 32`',
    ]);
  }
  const providerAccess = providerAccessOf(raw);
  const weakness = raw.STATE_ENCRYPTION_KEY
    ? stateKeyWeakness(Buffer.from(raw.STATE_ENCRYPTION_KEY, 'base64'))
    : null;
  if (weakness) throw new ConfigError([weakStateKeyMessage('STATE_ENCRYPTION_KEY', weakness)]);
  return {
    nodeEnv,
    port: raw.PORT ?? 3000,
    host: raw.HOST ?? '127.0.0.1',
    databaseUrl,
    dataDir: resolve(raw.DATA_DIR ?? './data'),
    migrate: raw.DB_MIGRATE ?? embedded,
    seedDemo: raw.SEED_DEMO ?? embedded,
    redisUrl: raw.REDIS_URL ?? null,
    stateEncryptionKey: raw.STATE_ENCRYPTION_KEY ?? null,
    introspection: raw.GRAPHQL_INTROSPECTION ?? true,
    corsOrigins: (raw.CORS_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    rateLimitPerMinute: raw.RATE_LIMIT_PER_MINUTE ?? 600,
    logLevel: raw.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    logFormat: (raw.LOG_FORMAT ?? null) as AppConfig['logFormat'],
    metricsEnabled: raw.METRICS_ENABLED ?? true,
    metricsToken: raw.METRICS_TOKEN ?? null,
    runLeaseSeconds: raw.RUN_LEASE_SECONDS ?? 60,
    reaperIntervalSeconds: raw.REAPER_INTERVAL_SECONDS ?? 5,
    retention: {
      stepsAfterSeconds:
        raw.RETENTION_STEPS_DAYS === undefined ? null : Math.round(raw.RETENTION_STEPS_DAYS * 86_400),
      runsAfterSeconds:
        raw.RETENTION_RUNS_DAYS === undefined ? null : Math.round(raw.RETENTION_RUNS_DAYS * 86_400),
      intervalSeconds: raw.RETENTION_INTERVAL_SECONDS ?? 600,
      batchRuns: raw.RETENTION_BATCH_RUNS ?? 100,
    },
    maxIterationsCeiling: raw.AGENT_MAX_ITERATIONS_CEILING ?? 20,
    progressKeepAliveSeconds: raw.PROGRESS_KEEPALIVE_SECONDS ?? 10,
    textDeltaCoalesceMs: raw.TEXT_DELTA_COALESCE_MS ?? 50,
    decisionPath: (raw.DECISION_PATH ?? 'auto') as DecisionPathSetting,
    decisionPickupSeconds: raw.DECISION_PICKUP_SECONDS ?? 30,
    approvalExpiry: {
      intervalSeconds: raw.APPROVAL_EXPIRY_INTERVAL_SECONDS ?? 5,
      batch: raw.APPROVAL_EXPIRY_BATCH ?? 100,
    },
    workerConcurrency: raw.WORKER_CONCURRENCY ?? 4,
    workerPrefetch: raw.WORKER_PREFETCH ?? 0,
    workerLivenessSeconds: raw.WORKER_LIVENESS_SECONDS ?? 30,
    workerEnabled: raw.WORKER_ENABLED ?? true,
    chatMaxActiveConversations: raw.CHAT_MAX_ACTIVE_CONVERSATIONS ?? 100,
    runsMaxWaitingPerUser: raw.RUNS_MAX_WAITING_PER_USER ?? 50,
    runStartsPerMinute: raw.RUN_STARTS_PER_MINUTE ?? 30,
    // why: 1 MiB, like HTTP bodies; ws would otherwise take 100 MiB frames before authentication.
    wsMaxPayloadBytes: raw.WS_MAX_PAYLOAD_BYTES ?? 1_048_576,
    wsConnectionInitTimeoutSeconds: raw.WS_CONNECTION_INIT_TIMEOUT_SECONDS ?? 5,
    wsMaxSubscriptionsPerConnection: raw.WS_MAX_SUBSCRIPTIONS_PER_CONNECTION ?? 50,
    wsMaxConnectionsPerUser: raw.WS_MAX_CONNECTIONS_PER_USER ?? 50,
    wsKeepAliveSeconds: raw.WS_KEEPALIVE_SECONDS ?? 10,
    wsMaxBufferedBytes: raw.WS_MAX_BUFFERED_BYTES ?? 4_194_304,
    authFailuresPerMinute: raw.AUTH_FAILURES_PER_MINUTE ?? 30,
    webhooks: {
      allowPrivateNetworks: raw.WEBHOOKS_ALLOW_PRIVATE_NETWORKS ?? false,
      timeoutMs: raw.WEBHOOKS_TIMEOUT_MS ?? 10_000,
      retryBaseMs: raw.WEBHOOKS_RETRY_BASE_MS ?? 5_000,
      retryMaxDelayMs: raw.WEBHOOKS_RETRY_MAX_DELAY_MS ?? 3_600_000,
      retryWindowSeconds: raw.WEBHOOKS_RETRY_WINDOW_SECONDS ?? 86_400,
      pollMs: raw.WEBHOOKS_POLL_MS ?? 1_000,
      publicClientUrl: raw.PUBLIC_CLIENT_URL ?? null,
    },
    oidc: oidcOf(raw),
    providerAccess,
    // why: only variables meant for provider keys can be read at all, so no path from a
    // configuration reaches another variable of the server's environment.
    secret: (name: string) => (keyNameAllowed(name, providerAccess) ? env[name] : undefined),
  };
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function oidcOf(raw: EnvSchema): OidcSettings | null {
  if (!raw.OIDC_ISSUER) return null;
  const audiences = list(raw.OIDC_AUDIENCE);
  // why: without an audience any token the provider issues to any client would be accepted.
  if (audiences.length === 0) throw new ConfigError(['OIDC_AUDIENCE: required with OIDC_ISSUER']);
  const algs = list(raw.OIDC_ALLOWED_ALGS);
  return {
    issuer: raw.OIDC_ISSUER,
    audiences,
    allowedAlgorithms: algs.length > 0 ? algs : ['RS256', 'ES256', 'PS256'],
    groupsClaim: raw.OIDC_GROUPS_CLAIM ?? 'groups',
    autoCreateUsers: raw.OIDC_AUTO_CREATE_USERS ?? false,
    clockSkewSeconds: raw.OIDC_CLOCK_SKEW_SECONDS ?? 30,
    webClientId: raw.OIDC_WEB_CLIENT_ID ?? null,
    webScope: raw.OIDC_WEB_SCOPE ?? 'openid profile email',
  };
}

function providerAccessOf(raw: EnvSchema): ProviderAccess {
  const keyEnvPrefix = raw.PROVIDER_KEY_ENV_PREFIX ?? DEFAULT_PROVIDER_KEY_PREFIX;
  const keyEnvNames = list(raw.PROVIDER_KEY_ENV_NAMES);
  const baseUrls = list(raw.PROVIDER_BASE_URLS);
  const problems: string[] = [];
  const secrets = keyEnvNames.filter((n) => SERVER_SECRET_ENV_NAMES.includes(n));
  if (secrets.length > 0) {
    problems.push(`PROVIDER_KEY_ENV_NAMES: ${secrets.join(', ')} is a secret of the server itself`);
  }
  if (SERVER_SECRET_ENV_NAMES.some((n) => n.startsWith(keyEnvPrefix))) {
    problems.push('PROVIDER_KEY_ENV_PREFIX: would admit a secret of the server itself');
  }
  const badUrls = baseUrls.filter((u) => !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(u));
  if (badUrls.length > 0) {
    problems.push(`PROVIDER_BASE_URLS: not http(s) URLs without query: ${badUrls.join(', ')}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { keyEnvPrefix, keyEnvNames, baseUrls };
}

function keyNameAllowed(name: string, access: ProviderAccess): boolean {
  return keyEnvProblem(name, access) === null;
}
