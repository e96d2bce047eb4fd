import { digestsEqual } from '../../../agent';

/** The waiting turn a decision is about: the run, its turn, the digest the decider was shown. */
export interface TurnKey {
  readonly runId: string;
  readonly turn: number;
  readonly digest: string;
}

interface Entry {
  readonly turn: number;
  readonly digest: string;
  /** Whether the decision took the turn (the run left it), once it has ended. */
  readonly took: Promise<boolean>;
}

/**
 * The decisions in flight in this process, by run. why: in a burst of decisions on one run (a
 * double-click, a storm of them) every decision after the first would read the configuration,
 * then wait in PostgreSQL on the winner's row lock, holding a pooled connection, only to find
 * the run no longer waiting. Here a decision waits for the one in flight on its run instead
 * and, where that one took the turn the caller decided, under the same digest, is refused at
 * once without a statement: the answer check 3 gives once the winner committed. Correctness
 * does not rest on this: across processes the claim's conditional UPDATE still decides.
 */
export class ClaimsInFlight {
  private readonly inFlight = new Map<string, Entry>();

  /**
   * Runs `decide` for the turn once no other decision of this process is in flight on the run;
   * throws `lost()` instead when one that took the same turn under the same digest ended
   * meanwhile. `took` tells whether a result left the waiting turn (a quorum's vote that does
   * not complete it does not). `queue: false` runs at once: for a caller that already holds a
   * transaction, which may hold the run's row lock that the decision in flight waits for;
   * queued behind it, each would wait for the other.
   */
  async run<T>(
    key: TurnKey,
    decide: () => Promise<T>,
    took: (result: T) => boolean,
    lost: () => Error,
    queue = true,
  ): Promise<T> {
    if (!queue) return decide();
    for (let current = this.inFlight.get(key.runId); current; current = this.inFlight.get(key.runId)) {
      if ((await current.took) && current.turn === key.turn && digestsEqual(current.digest, key.digest)) {
        throw lost();
      }
    }
    const result = decide();
    const entry: Entry = {
      turn: key.turn,
      digest: key.digest,
      took: result.then(took, () => false),
    };
    this.inFlight.set(key.runId, entry);
    // why: registered before any waiter's, so the entry is gone when the waiters look again.
    void entry.took.then(() => {
      if (this.inFlight.get(key.runId) === entry) this.inFlight.delete(key.runId);
    });
    return result;
  }

  /** How many runs have a decision in flight (for tests). */
  get size(): number {
    return this.inFlight.size;
  }
}
