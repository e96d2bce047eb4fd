import { LeaseLostError, type PendingEffect } from '../../../agent';
import type { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { EffectWriteRider, Lease, RunsRepository, StoredStep } from '../persistence/runs.repository';
import { CarriedWriteLost, type WriteFence } from './content-port.adapter';
import type { KeptSteps } from './kept-steps';

/**
 * A segment's write calls: the pending effect they announce, the write's fence, and the unit a
 * transactional write commits in with its completion (`AgentPorts.atomically`). The unit is one
 * statement where it can be: the page is read and checked without a lock, and the write rides
 * in the statement that completes the call (guarded: it happens only under the run's lease and
 * while the page still holds what was read). Where the guard fails, the call runs again in a
 * transaction that reads under a lock, so a concurrent edit is met as before. why: the
 * transaction cost five round trips (START, the locked read, the write, the completion,
 * COMMIT) where the statement costs two (the read, the completion with the write).
 */
export class EffectWrites {
  /** The transactional effect in flight, recorded by its write's mark or completion. */
  private unannounced: Record<string, unknown> | null = null;
  private unit: 'none' | 'statement' | 'transaction' = 'none';
  /** The write planned inside the one-statement unit, sent with the completion. */
  private carried: EffectWriteRider | null = null;

  constructor(
    private readonly repository: RunsRepository,
    private readonly transactions: TransactionRunner,
    private readonly lease: Lease,
    private readonly leaseSeconds: number,
    private readonly steps: KeptSteps,
  ) {}

  /** The write's fence for the content port (`WriteFence`). */
  fence(): WriteFence {
    return {
      run: (work) => this.transactions.run(() => work()),
      // why: inside the transaction unit the completion in the same transaction fences the write.
      mark: async () =>
        this.unit === 'transaction' || this.repository.markEffectApplied(this.lease, this.unannounced),
      carries: () => this.unit === 'statement',
      // why: one write rides in a completion; a call that writes twice runs in the transaction.
      carry: (write) => {
        if (this.carried) return false;
        this.carried = write;
        return true;
      },
    };
  }

  /** Announces a write's effect before it happens (`AgentPorts.setPendingEffect`). */
  async announce(effect: PendingEffect): Promise<void> {
    // why: what the run did before a tool's effect is stored before that effect happens.
    await this.steps.flush();
    // why: the effect's declaration goes with it; the reaper's rule reads it (reap-rule.ts).
    const marked = { callId: effect.callId, toolName: effect.toolName, effect: effect.effect };
    // why: a transactional effect commits with its write's mark (or its completion) or not at
    // all, so it is recorded with that: before it commits nothing has happened, and a run cut
    // off then is requeued just as an announced, unmarked one is. An external effect is
    // announced before it runs.
    this.unannounced = effect.effect === 'transactional' ? marked : null;
    if (this.unannounced) return;
    if (!(await this.repository.setPendingEffect(this.lease, marked))) throw new LeaseLostError();
  }

  /**
   * Stores a write call's steps, clears its effect and stores the state after it, in one
   * statement with the write where the one-statement unit carries one. Their sequences;
   * LeaseLostError: nothing stored; CarriedWriteLost: the write's guard failed, nothing stored.
   */
  async complete(stored: readonly StoredStep[], sealed?: string): Promise<number[]> {
    await this.steps.flush();
    const write = this.carried;
    this.carried = null;
    const done = write
      ? await this.repository.completeEffectWith(this.lease, stored, this.leaseSeconds, sealed, write)
      : await this.repository.completeEffect(this.lease, stored, this.leaseSeconds, sealed);
    if (done === 'write-lost') throw new CarriedWriteLost();
    this.unannounced = null;
    if (done === null || done === 'lease-lost') throw new LeaseLostError();
    this.steps.storedBy(done);
    return [...done];
  }

  /** A transactional write and its completion as one unit: one statement, else a transaction. */
  async atomically<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.within('statement', work);
    } catch (e) {
      if (!(e instanceof CarriedWriteLost)) throw e;
    }
    return this.transactions.run(() => this.within('transaction', work));
  }

  private async within<T>(unit: 'statement' | 'transaction', work: () => Promise<T>): Promise<T> {
    this.unit = unit;
    this.carried = null;
    try {
      return await work();
    } finally {
      this.unit = 'none';
      this.carried = null;
    }
  }
}
