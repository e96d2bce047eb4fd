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

// why: one round trip that drops the leases nobody renewed (a crashed instance's), then admits
// the member only below the cap; concurrent admissions on other instances cannot overshoot it.
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

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
 * Counters shared by every instance through Redis (REDIS_URL): fixed windows for the per-user
 * operation budget and failed authentications per address, and leased sets for the graphql-ws
 * connections each user holds. `increment` resolves null where
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

  /**
   * Admits `member` into the set `key` while it holds fewer than `max` live members; a member
   * lives `leaseMs` unless renewed. Null when Redis cannot answer (the caller decides alone).
   */
  async admit(key: string, member: string, max: number, leaseMs: number): Promise<boolean | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    const now = Date.now();
    try {
      const admitted = await this.redis.eval(
        ADMIT,
        1,
        this.namespace + key,
        now,
        max,
        now + leaseMs,
        member,
        leaseMs,
      );
      return admitted === 1;
    } catch {
      return null;
    }
  }

  /** Extends the leases of members still present (a member released meanwhile stays out). */
  async renew(members: ReadonlyArray<{ key: string; member: string }>, leaseMs: number): Promise<void> {
    if (!this.redis || this.redis.status !== 'ready' || members.length === 0) return;
    const until = Date.now() + leaseMs;
    const batch = this.redis.pipeline();
    for (const { key, member } of members) {
      batch.zadd(this.namespace + key, 'XX', until, member);
      batch.pexpire(this.namespace + key, leaseMs);
    }
    await batch.exec().catch(() => undefined);
  }

  /** Removes `member` from the set `key` (best effort: an unrenewed lease ends by itself). */
  async release(key: string, member: string): Promise<void> {
    if (!this.redis || this.redis.status !== 'ready') return;
    await this.redis.zrem(this.namespace + key, member).catch(() => undefined);
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}

/** One set of shared counters per process, for the HTTP and graphql-ws paths alike. */
@Global()
@Module({ providers: [SharedCounters], exports: [SharedCounters] })
export class SharedCountersModule {}
