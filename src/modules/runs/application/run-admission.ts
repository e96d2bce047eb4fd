import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { Refusal } from '../../../common/refusal';
import { SharedCounters } from '../../../platform/redis/shared-counters';
import { RunAdmissionRepository } from '../persistence/run-admission.repository';

/** The window of RUN_STARTS_PER_MINUTE. */
const WINDOW_MS = 60_000;
const KEY_PREFIX = 'run-starts:';

/**
 * The per-user caps on new runs (docs/security.md, "Limits on runs"), checked by every path that
 * creates one (`startRun`, chat turns) inside the transaction that inserts it:
 *
 * 1. starts per minute (`RUN_STARTS_PER_MINUTE`): a fixed window per user, counted in Redis
 *    where REDIS_URL is set so the budget holds over every instance, else (or while Redis
 *    cannot answer) in this process's memory. Every start that reaches this check counts,
 *    refused or not. Over it: RATE_LIMITED with `retryAfterSeconds`.
 * 2. unfinished runs (`RUNS_MAX_WAITING_PER_USER`): counted under a lock on the owner's row held
 *    until the insert commits, so concurrent starts of one user pass one at a time and the cap
 *    is exact. Over it: TOO_MANY_WAITING_RUNS.
 *
 * A refusal is thrown inside the start's transaction, which therefore writes nothing.
 */
@Injectable()
export class RunAdmission {
  private readonly windows = new Map<number, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(
    private readonly repository: RunAdmissionRepository,
    private readonly counters: SharedCounters,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Admits one more run of `ownerId`, or refuses; call inside the transaction that inserts it. */
  async admit(ownerId: number): Promise<void> {
    await this.countStart(ownerId);
    // why: the lock comes after the Redis round trip, so no start holds the owner's row while
    // it waits for Redis.
    await this.repository.lockOwner(ownerId);
    const open = await this.repository.countUnfinished(ownerId);
    const max = this.config.runsMaxWaitingPerUser;
    if (open >= max) {
      throw new Refusal(
        'TOO_MANY_WAITING_RUNS',
        `At most ${max} runs may be open at once; decide, cancel or let some finish first`,
        { limit: max },
      );
    }
  }

  private async countStart(ownerId: number): Promise<void> {
    const limit = this.config.runStartsPerMinute;
    const shared = await this.counters.increment(KEY_PREFIX + String(ownerId), WINDOW_MS);
    const { count, ttlMs } = shared ?? this.countLocally(ownerId);
    if (count > limit) {
      throw new Refusal('RATE_LIMITED', `At most ${limit} runs may be started per minute`, {
        retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
      });
    }
  }

  /** The fixed window in this process's memory (no Redis, or Redis unreachable right now). */
  private countLocally(ownerId: number): { count: number; ttlMs: number } {
    const now = Date.now();
    let window = this.windows.get(ownerId);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + WINDOW_MS };
      this.windows.set(ownerId, window);
    }
    window.count += 1;
    this.sweep(now);
    return { count: window.count, ttlMs: window.resetAt - now };
  }

  /** Drops finished windows (at most once a second), so the map holds only recent starters. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [owner, window] of this.windows) if (window.resetAt <= now) this.windows.delete(owner);
  }
}
