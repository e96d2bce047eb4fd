import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const toBool = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return value;
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};
const toNumber = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
};
const toInt = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
};

/**
 * Every environment variable the server reads, validated once at boot.
 * Nothing outside `src/config` reads `process.env` (the one exception, a provider's API key,
 * goes through `AppConfig.secret()`).
 */
export class EnvSchema {
  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    message: 'DATABASE_URL must be a postgres:// or postgresql:// URL',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  DATA_DIR?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  DB_MIGRATE?: boolean;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  SEED_DEMO?: boolean;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'STATE_ENCRYPTION_KEY must be 32 bytes, base64-encoded (44 characters)',
  })
  STATE_ENCRYPTION_KEY?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  GRAPHQL_INTROSPECTION?: boolean;

  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_MINUTE?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @IsOptional()
  @IsIn(['pretty', 'json'])
  LOG_FORMAT?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  METRICS_ENABLED?: boolean;

  @IsOptional()
  @Matches(/^\S{16,256}$/, { message: 'METRICS_TOKEN must be 16 to 256 characters without spaces' })
  METRICS_TOKEN?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  RUN_LEASE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REAPER_INTERVAL_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  AGENT_MAX_ITERATIONS_CEILING?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  PROGRESS_KEEPALIVE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(5000)
  TEXT_DELTA_COALESCE_MS?: number;

  @IsOptional()
  @IsIn(['inline', 'durable', 'auto'])
  DECISION_PATH?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  DECISION_PICKUP_SECONDS?: number;

  /** How often every instance sweeps approval waits past their deadline (seconds, default 5). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  APPROVAL_EXPIRY_INTERVAL_SECONDS?: number;

  /** Runs one expiry pass settles at most before the next tick (default 100). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  APPROVAL_EXPIRY_BATCH?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  WORKER_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  WORKER_LIVENESS_SECONDS?: number;

  /** `false`: this process neither claims queued runs nor reaps expired leases. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WORKER_ENABLED?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  CHAT_MAX_ACTIVE_CONVERSATIONS?: number;

  /** Unfinished runs (queued, running, waiting, decision recorded) one user may have at once. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  RUNS_MAX_WAITING_PER_USER?: number;

  /** Run starts (startRun and chat turns) one user may make in a minute, over all instances. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RUN_STARTS_PER_MINUTE?: number;

  /** The largest WebSocket frame accepted, before and after authentication (ws `maxPayload`). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(104_857_600)
  WS_MAX_PAYLOAD_BYTES?: number;

  /** How long a new WebSocket may take to send `connection_init` before it is closed (4408). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(300)
  WS_CONNECTION_INIT_TIMEOUT_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WS_MAX_SUBSCRIPTIONS_PER_CONNECTION?: number;

  /** How often the server pings an idle graphql-ws connection (protocol ping; no pong within as long: closed). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  WS_KEEPALIVE_SECONDS?: number;

  /** Bytes a graphql-ws socket may have waiting to be sent before it is closed as too slow (4413). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1_073_741_824)
  WS_MAX_BUFFERED_BYTES?: number;

  /** Open graphql-ws connections one user may hold (over all instances where REDIS_URL is set). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  WS_MAX_CONNECTIONS_PER_USER?: number;

  /** Failed authentications one remote address may make in a minute (HTTP and graphql-ws). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  AUTH_FAILURES_PER_MINUTE?: number;

  /** Issuer of the organisation's identity provider (OpenID Connect); unset: personal access tokens only. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s?#]+$/, { message: 'OIDC_ISSUER must be an http(s) URL without query' })
  OIDC_ISSUER?: string;

  /** Audiences a token must name (one of), comma-separated; required with OIDC_ISSUER. */
  @IsOptional()
  @IsString()
  OIDC_AUDIENCE?: string;

  /** Signature algorithms accepted, comma-separated (default RS256,ES256,PS256). */
  @IsOptional()
  @Matches(
    /^\s*(RS|PS|ES)(256|384|512)\s*(,\s*((RS|PS|ES)(256|384|512)|EdDSA)\s*)*$|^\s*EdDSA(\s*,\s*((RS|PS|ES)(256|384|512)|EdDSA)\s*)*$/,
    {
      message:
        'OIDC_ALLOWED_ALGS must list asymmetric algorithms (RS*, PS*, ES*, EdDSA); none and HS* are refused',
    },
  )
  OIDC_ALLOWED_ALGS?: string;

  /** The claim holding the user's groups or roles (default groups). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_:./-]{1,200}$/, { message: 'OIDC_GROUPS_CLAIM must be a claim name' })
  OIDC_GROUPS_CLAIM?: string;

  /** Create a user on their first sign-in (default false: an admin creates them, linked by subject). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  OIDC_AUTO_CREATE_USERS?: boolean;

  /** Clock skew tolerated on exp/nbf/iat, in seconds (default 30). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300)
  OIDC_CLOCK_SKEW_SECONDS?: number;

  /** The reference web client's public client id at the provider (authorisation code + PKCE). */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,200}$/, { message: 'OIDC_WEB_CLIENT_ID must be printable ASCII without spaces' })
  OIDC_WEB_CLIENT_ID?: string;

  /** Scopes the web client asks for (default "openid profile email"). */
  @IsOptional()
  @Matches(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, { message: 'OIDC_WEB_SCOPE must be scopes separated by spaces' })
  OIDC_WEB_SCOPE?: string;
  /** Provider key variables must start with this (default CS_PROVIDER_KEY_). */
  @IsOptional()
  @Matches(/^[A-Z][A-Z0-9_]{2,63}$/, {
    message: 'PROVIDER_KEY_ENV_PREFIX must be 3-64 upper-case letters, digits or "_", starting with a letter',
  })
  PROVIDER_KEY_ENV_PREFIX?: string;

  /** Further variable names allowed as provider keys, comma-separated. */
  @IsOptional()
  @Matches(/^\s*([A-Za-z_][A-Za-z0-9_]{0,127}\s*(,\s*[A-Za-z_][A-Za-z0-9_]{0,127}\s*)*)?$/, {
    message: 'PROVIDER_KEY_ENV_NAMES must be environment variable names separated by commas',
  })
  PROVIDER_KEY_ENV_NAMES?: string;

  /** Base URLs providers may be reached at, comma-separated; unset: any http(s) URL. */
  @IsOptional()
  @IsString()
  PROVIDER_BASE_URLS?: string;

  /** Retention: finished runs keep their steps this many days (unset: forever). */
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.0001)
  @Max(36_500)
  RETENTION_STEPS_DAYS?: number;

  /** Retention: finished runs are deleted this many days after they finished (unset: never). */
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.0001)
  @Max(36_500)
  RETENTION_RUNS_DAYS?: number;

  /** How often the retention sweep looks for work (seconds, default 600). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RETENTION_INTERVAL_SECONDS?: number;

  /** Runs per retention statement (default 100): the bound on each batch's locks. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  RETENTION_BATCH_RUNS?: number;

  /** Webhooks may be sent to loopback, private and link-local addresses (default false). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS?: boolean;

  /** How long one webhook request may take, in milliseconds (default 10000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOKS_TIMEOUT_MS?: number;

  /** The first retry of a failed webhook waits up to this long, in milliseconds (default 5000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  WEBHOOKS_RETRY_BASE_MS?: number;

  /** No retry of a webhook waits longer than this, in milliseconds (default 3600000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400_000)
  WEBHOOKS_RETRY_MAX_DELAY_MS?: number;

  /** A webhook is retried for this long after its event, in seconds, then marked failed (default 86400). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(2_592_000)
  WEBHOOKS_RETRY_WINDOW_SECONDS?: number;

  /** How often workers look for due webhooks, in milliseconds (default 1000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(600_000)
  WEBHOOKS_POLL_MS?: number;

  /** Where people open the reference client (its origin, e.g. https://countersign.example.com): links in webhooks. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s?#]+$/, { message: 'PUBLIC_CLIENT_URL must be an http(s) URL without query' })
  PUBLIC_CLIENT_URL?: string;
}
