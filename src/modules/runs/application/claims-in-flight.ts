import { digestsEqual } from '../../../agent';

/**
 * The waiting turn a decision is about: the run, its turn, the digest the decider was shown,
 * and `seen`, a stamp of the waiting the decider's read of the run found (when it began and the
 * run's step count then): a hand-back that opens the same turn again stamps it anew.
 */
export interface TurnKey {
  readonly runId: string;
  readonly turn: number;
  readonly digest: string;
  readonly seen: string;
}

interface Entry {
  readonly key: TurnKey;
  /** Whether the decision took the turn (the run left it), once it has ended. */
  readonly took: Promise<boolean>;
}

/** How long a turn taken here is remembered after its decision ended. */
export const TAKEN_MEMORY_MS = 5_000;
/** The most taken turns remembered at once (the oldest go first beyond it). */
const TAKEN_LIMIT = 4_096;

/**
 * The decisions in flight in this process, by run, and the turns they took a moment ago. why:
 * in a burst of decisions on one run (a double-click, a storm of them) every decision after
 * the first would read the configuration, then wait in PostgreSQL on the winner's row lock,
 * holding a pooled connection, only to find the run no longer waiting. Here a decision waits
 * for the one in flight on its run instead and, where that one took the turn the caller
 * decided, as the caller's read saw it waiting, is refused at once without a statement: the
 * answer check 3 gives once the winner committed. A racer whose read of the run went out
 * before the winner's commit but came back after the winner ended meets the taken turn in
 * memory likewise (without it, such late racers each claimed in turn, about one storm in
 * eight). Correctness does not rest on this: across processes the claim's conditional UPDATE
 * still decides.
 */
export class ClaimsInFlight {
  private readonly inFlight = new Map<string, Entry>();
  /** Turns taken here, by run, with the time they are forgotten; in the order they were taken. */
  private readonly taken = new Map<string, { key: TurnKey; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `decide` for the turn once no other decision of this process is in flight on the run;
   * throws `lost()` instead when one that took the same turn, as the caller saw it waiting, ended
   * meanwhile or a moment ago. `took` tells whether a result left the waiting turn (a quorum's
   * vote that does not complete it does not). `queue: false` runs at once: for a caller that
   * already holds a transaction, which may hold the run's row lock that the decision in flight
   * waits for; queued behind it, each would wait for the other.
   */
  async run<T>(
    key: TurnKey,
    decide: () => Promise<T>,
    took: (result: T) => boolean,
    lost: () => Error,
    queue = true,
  ): Promise<T> {
    if (!queue) return decide();
    if (this.takenBefore(key)) throw lost();
    for (let current = this.inFlight.get(key.runId); current; current = this.inFlight.get(key.runId)) {
      if ((await current.took) && sameWaiting(current.key, key)) throw lost();
    }
    const result = decide();
    const entry: Entry = { key, took: result.then(took, () => false) };
    this.inFlight.set(key.runId, entry);
    // why: registered before any waiter's, so the entry is gone when the waiters look again.
    void entry.took.then((tookIt) => {
      if (this.inFlight.get(key.runId) === entry) this.inFlight.delete(key.runId);
      if (tookIt) this.remember(key);
    });
    return result;
  }

  /** How many runs have a decision in flight (for tests). */
  get size(): number {
    return this.inFlight.size;
  }

  /** Whether a decision of this process took this very waiting a moment ago. */
  private takenBefore(key: TurnKey): boolean {
    const taken = this.taken.get(key.runId);
    if (!taken) return false;
    if (taken.until > this.now()) return sameWaiting(taken.key, key);
    this.taken.delete(key.runId);
    return false;
  }

  private remember(key: TurnKey): void {
    const now = this.now();
    this.taken.delete(key.runId);
    this.taken.set(key.runId, { key, until: now + TAKEN_MEMORY_MS });
    // why: remembered in the order taken, all for as long, so the oldest are the first due.
    for (const [runId, { until }] of this.taken) {
      if (until > now && this.taken.size <= TAKEN_LIMIT) break;
      this.taken.delete(runId);
    }
  }
}

/** The same turn under the same digest, as the same waiting (not one a hand-back opened again). */
function sameWaiting(a: TurnKey, b: TurnKey): boolean {
  return a.turn === b.turn && a.seen === b.seen && digestsEqual(a.digest, b.digest);
}
