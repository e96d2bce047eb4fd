import { ExecutionContext, Injectable } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import { ThrottlerGuard, ThrottlerModuleOptions } from '@nestjs/throttler';
import type { ThrottlerLimitDetail, ThrottlerStorage } from '@nestjs/throttler';
import { SharedCounters } from '../redis/shared-counters';
import type { AppConfig } from '../../config/app-config';
import { Refusal } from '../../common/refusal';
import { HitLogStorage } from './hit-log-storage';
import type { GqlContext } from '../auth/access.guard';
import type { AuthUser } from '../auth/auth-user';

/** The one throttler: operations per user per minute (`RATE_LIMIT_PER_MINUTE`). */
export const OPERATIONS_THROTTLER = 'operations';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The budget counted in Redis where REDIS_URL is set, so a user's operations add up over every
 * instance (with @nestjs/throttler's in-memory storage each instance gave a full budget of its
 * own): a fixed window of `ttl` per user, over the limit refused until the window ends. While
 * Redis cannot be reached it counts in this instance's memory instead of refusing or waiting.
 */
export class SharedThrottlerStorage implements ThrottlerStorage {
  private readonly local = new HitLogStorage();

  constructor(private readonly counters: SharedCounters) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const shared = await this.counters.increment(`throttle:${key}`, ttl);
    if (!shared) return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
    const seconds = Math.max(1, Math.ceil(shared.ttlMs / 1000));
    const isBlocked = shared.count > limit;
    return {
      totalHits: shared.count,
      timeToExpire: seconds,
      isBlocked,
      timeToBlockExpire: isBlocked ? seconds : 0,
    };
  }
}

/** @nestjs/throttler options for the per-user operation budget. */
export function throttlerOptions(config: AppConfig, counters: SharedCounters): ThrottlerModuleOptions {
  return {
    throttlers: [{ name: OPERATIONS_THROTTLER, ttl: 60_000, limit: config.rateLimitPerMinute }],
    setHeaders: false,
    // why: the stock in-memory storage costs O(hits in the last minute) per request.
    storage: counters.shared ? new SharedThrottlerStorage(counters) : new HitLogStorage(),
  };
}

/**
 * Rate limit per user (docs/security.md): every root field a GraphQL operation resolves
 * counts as one operation (so `{ a: viewer b: viewer }` counts twice), over HTTP and
 * graphql-ws alike; past `RATE_LIMIT_PER_MINUTE` in a minute it refuses with RATE_LIMITED
 * (retryable). Built on @nestjs/throttler's guard and storage, keyed by the user id; shared by
 * every instance through Redis where REDIS_URL is set (SharedThrottlerStorage).
 *
 * Runs as a global guard after authentication (the GraphQL context has already turned a
 * missing or bad token into UNAUTHENTICATED). HTTP routes (health, GraphiQL) are not counted.
 */
@Injectable()
export class OperationThrottlerGuard extends ThrottlerGuard {
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(context.getType<string>() !== 'graphql');
  }

  protected override getRequestResponse(context: ExecutionContext): {
    req: Record<string, unknown>;
    res: Record<string, unknown>;
  } {
    const user = GqlExecutionContext.create(context).getContext<GqlContext>().ctx?.user ?? null;
    // why: the GraphQL context carries no express req/res (graphql-ws has none); headers off.
    return { req: { headers: {}, user }, res: {} };
  }

  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const user = req.user as AuthUser | null;
    return Promise.resolve(user ? `user:${user.id}` : 'anonymous');
  }

  /** One budget per user across all operations (the default key is per resolver method). */
  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    return Promise.reject(
      new Refusal('RATE_LIMITED', 'Too many operations; try again later', {
        retryAfterSeconds: detail.timeToBlockExpire,
      }),
    );
  }
}
