import { Transform } from 'class-transformer';
import { IntegrationsEnv } from './env.integrations';
import { toBool, toInt } from './env.transforms';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/**
 * Every environment variable the server reads, validated once at boot (those of the identity
 * provider, provider keys, retention and webhooks in IntegrationsEnv).
 * Nothing outside `src/config` reads `process.env` (the one exception, a provider's API key,
 * goes through `AppConfig.secret()`).
 */
export class EnvSchema extends IntegrationsEnv {
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
  @Min(0)
  @Max(256)
  WORKER_PREFETCH?: number;

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
}
