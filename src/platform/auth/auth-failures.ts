import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { SharedCounters } from '../redis/shared-counters';

/** The window failed authentications are counted in. */
const WINDOW_MS = 60_000;
const KEY_PREFIX = 'auth-failures:';

/**
 * Failed authentications per remote address (`AUTH_FAILURES_PER_MINUTE`), over HTTP and
 * graphql-ws alike: past the limit every attempt from that address is refused until its minute
 * is over, valid tokens included (otherwise a guess that happens to be right would still get
 * through). Only a presented token that is wrong counts; a request without one does not.
 *
 * With REDIS_URL every failure is counted in Redis too (INCR, expiring with the window), and the
 * instance takes the shared count and window back: guesses spread over instances add up, and an
 * address over the limit anywhere is refused by each instance from its next failure on (at most
 * one more guess per instance). The check itself reads memory only, so an ordinary request never
 * waits for Redis; while Redis is unreachable each instance counts alone.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly memory = new Map<string, { count: number; resetAt: number }>();
  private readonly limit: number;
  private lastSweep = 0;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly counters: SharedCounters,
  ) {
    this.limit = config.authFailuresPerMinute;
  }

  /** Seconds until `address` may try again, or 0 when it may try now. */
  blockedFor(address: string): number {
    const now = Date.now();
    const entry = this.memory.get(address);
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count >= this.limit ? Math.max(1, Math.ceil((entry.resetAt - now) / 1000)) : 0;
  }

  /** Counts one failed authentication from `address`. */
  async failed(address: string): Promise<void> {
    const now = Date.now();
    let entry = this.memory.get(address);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + WINDOW_MS };
      this.memory.set(address, entry);
    }
    entry.count += 1;
    this.sweep(now);
    const shared = await this.counters.increment(KEY_PREFIX + address, WINDOW_MS);
    // why: while Redis is away the count in memory above still limits this instance.
    if (!shared) return;
    if (shared.count > entry.count) entry.count = shared.count;
    entry.resetAt = Date.now() + shared.ttlMs;
  }

  /** Drops the windows that are over, so the map holds only addresses of the last minute. */
  private sweep(now: number): void {
    // why: at most once a second, so a burst from many addresses does not walk the map each time.
    if (this.memory.size < 1000 || now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [address, entry] of this.memory) if (entry.resetAt <= now) this.memory.delete(address);
  }
}
