import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

/** How long a count may take before this instance counts alone. */
const COMMAND_TIMEOUT_MS = 500;

/** A counter's value in its window, as every instance sees it. */
export interface SharedCount {
  readonly count: number;
  /** Milliseconds until the window ends and the counter starts again from 0. */
  readonly ttlMs: number;
}

// why: one round trip, and the window starts with the first hit even when two instances race.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`;

/**
 * The Redis namespace of one deployment: its database. Instances of one deployment share the
 * database and so their counters; two deployments (or two test databases) on one Redis do not
 * count each other's users, whose ids repeat across databases.
 */
export function counterNamespace(config: AppConfig): string {
  if (!config.databaseUrl) return `cs:embedded:${config.dataDir}:`;
  const url = new URL(config.databaseUrl);
  return `cs:${url.hostname}:${url.port || '5432'}${url.pathname}:`;
}

/**
 * Fixed-window counters shared by every instance through Redis (REDIS_URL): the per-user
 * operation budget and failed authentications per address. `increment` resolves null where
 * there is no Redis, or it cannot be reached right now; callers then count in memory, per
 * instance, rather than refuse or wait (ioredis' offline queue is off: nothing waits for Redis).
 */
@Injectable()
export class SharedCounters implements OnApplicationShutdown {
  private readonly logger = new Logger(SharedCounters.name);
  private readonly redis: Redis | null;
  private readonly namespace: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.namespace = counterNamespace(config);
    this.redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          // why: a Redis that stalls (paused, overloaded) must not hold up requests either.
          commandTimeout: COMMAND_TIMEOUT_MS,
        })
      : null;
    this.redis?.on('error', (e: Error) => this.logger.warn(`redis: ${e.message}`));
  }

  get shared(): boolean {
    return this.redis !== null;
  }

  /** Counts one hit on `key` in a window of `windowMs`; null when Redis cannot count it. */
  async increment(key: string, windowMs: number): Promise<SharedCount | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    try {
      const [count, ttlMs] = (await this.redis.eval(INCREMENT, 1, this.namespace + key, windowMs)) as [
        number,
        number,
      ];
      return { count, ttlMs };
    } catch {
      return null;
    }
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}

/** One set of shared counters per process, for the HTTP and graphql-ws paths alike. */
@Global()
@Module({ providers: [SharedCounters], exports: [SharedCounters] })
export class SharedCountersModule {}
