/**
 * The inline claims in flight in this process, by run. why: in a burst of decisions on one run
 * (a double-click, a storm of them) every claim after the first would wait in PostgreSQL on the
 * winner's row lock, holding a pooled connection, only to find the run no longer waiting. Here
 * a claim waits for the one in flight on its run instead and, where that one won the same turn,
 * is refused at once without a statement. Correctness does not rest on this: across processes
 * the claim's conditional UPDATE still decides.
 */
export class ClaimsInFlight {
  private readonly inFlight = new Map<string, { readonly turn: number; readonly won: Promise<boolean> }>();

  /**
   * Runs `claim` for the run's `turn` once no other claim of this process is in flight on the
   * run; throws `lost()` instead when one that was won the same turn (the run left that
   * waiting turn for good: a continuation that pauses again does so on a later turn).
   * `queue: false` claims at once: for a caller that already holds a transaction, which may hold
   * the run's row lock (a quorum's completing vote) that the claim in flight waits for; queued
   * behind it, each would wait for the other.
   */
  async claim<T>(
    runId: string,
    turn: number,
    claim: () => Promise<T>,
    lost: () => Error,
    queue = true,
  ): Promise<T> {
    if (!queue) return claim();
    for (let current = this.inFlight.get(runId); current; current = this.inFlight.get(runId)) {
      if ((await current.won) && current.turn === turn) throw lost();
    }
    const result = claim();
    const entry = {
      turn,
      won: result.then(
        () => true,
        () => false,
      ),
    };
    this.inFlight.set(runId, entry);
    // why: registered before any waiter's, so the entry is gone when the waiters look again.
    void entry.won.then(() => {
      if (this.inFlight.get(runId) === entry) this.inFlight.delete(runId);
    });
    return result;
  }

  /** How many runs have a claim in flight (for tests). */
  get size(): number {
    return this.inFlight.size;
  }
}
