import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** The hits of one key and throttler in the current window, oldest first. */
interface HitLog {
  /** Expiry times (ms), ascending: each hit is stamped `now + ttl`, and time only moves on. */
  expiries: number[];
  /** Index of the oldest live entry: entries before it have expired. */
  head: number;
  /** End of the key's fixed window (what `timeToExpire` reports). */
  expiresAt: number;
  blocked: boolean;
  blockExpiresAt: number;
}

/** How often idle keys are dropped (at most; done on a request, no timer). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The throttler's in-memory storage with the semantics of @nestjs/throttler's own
 * `ThrottlerStorageService` (a sliding log of hits per key, blocked past `limit` for
 * `blockDuration`), in constant time per request.
 *
 * why: the stock storage filters a key's whole hit list and spreads it into `Math.min` on
 * every request, so a user's request costs O(hits in the last minute): the largest item of
 * the guards in the request profile (bench/README.md, P0), and a `RangeError` once a key holds
 * more hits than the stack has room for arguments. Expiries are appended in ascending order,
 * so expired hits are always at the front and the oldest live hit is the first one.
 */
export class HitLogStorage implements ThrottlerStorage {
  private readonly logs = new Map<string, HitLog>();
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = this.now();
    this.sweep(now);
    const id = `${throttlerName}\u0000${key}`;
    let log = this.logs.get(id);
    if (!log) {
      log = { expiries: [], head: 0, expiresAt: now + ttl, blocked: false, blockExpiresAt: 0 };
      this.logs.set(id, log);
    }
    prune(log, now);
    let timeToExpire = Math.ceil((log.expiresAt - now) / 1000);
    if (timeToExpire <= 0) {
      log.expiresAt = now + ttl;
      timeToExpire = Math.ceil((log.expiresAt - now) / 1000);
    }
    if (blockDuration <= 0) {
      const isBlocked = live(log) >= limit;
      if (!isBlocked) log.expiries.push(now + ttl);
      const oldest = log.expiries[log.head];
      return Promise.resolve({
        totalHits: live(log) + (isBlocked ? 1 : 0),
        timeToExpire,
        isBlocked,
        timeToBlockExpire: isBlocked
          ? oldest === undefined
            ? timeToExpire
            : Math.ceil((oldest - now) / 1000)
          : 0,
      });
    }
    if (!log.blocked) log.expiries.push(now + ttl);
    if (live(log) > limit && !log.blocked) {
      log.blocked = true;
      log.blockExpiresAt = now + blockDuration;
    }
    const timeToBlockExpire = Math.ceil((log.blockExpiresAt - now) / 1000);
    if (timeToBlockExpire <= 0 && log.blocked) {
      log.blocked = false;
      log.expiries = [now + ttl];
      log.head = 0;
    }
    return Promise.resolve({ totalHits: live(log), timeToExpire, isBlocked: log.blocked, timeToBlockExpire });
  }

  /** Keys held (tests). */
  size(): number {
    return this.logs.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [id, log] of this.logs) {
      prune(log, now);
      const idle = live(log) === 0 && log.expiresAt <= now && !(log.blocked && log.blockExpiresAt > now);
      if (idle) this.logs.delete(id);
    }
  }
}

const live = (log: HitLog): number => log.expiries.length - log.head;

function prune(log: HitLog, now: number): void {
  while (log.head < log.expiries.length && log.expiries[log.head]! <= now) log.head++;
  // why: drop the expired prefix once it is half the array, so memory stays O(live hits)
  // and each entry is copied O(1) times on average.
  if (log.head > 32 && log.head * 2 >= log.expiries.length) {
    log.expiries = log.expiries.slice(log.head);
    log.head = 0;
  }
}
