import { LeaseLostError, type Provider, type Step } from '../../../agent';
import type { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { Lease, RunsRepository } from '../persistence/runs.repository';

/** Kept steps taken for a write that stores them itself (`KeptSteps.take`). */
export type KeptBatch = readonly Kept[];

export interface Kept {
  readonly stored: Step;
  /** Tells the run's streams of the step, once it is stored (its sequence). */
  announce?: (sequence: number) => Promise<void>;
}

/**
 * The steps of one executing segment, written behind: a recorded step is kept in memory and
 * stored with the next ones in one statement when the segment is about to do something the
 * steps must precede (a model call, a tool's effect, its settle), so a round of a model call
 * and a read costs one commit instead of three. Each step is announced to the run's streams
 * only once it is stored. A segment that stops on a fault or a lost lease loses the steps it
 * kept, which is what a crash a moment earlier would have left: the run continues from its
 * last checkpoint either way (docs/run-lifecycle.md, "Steps").
 */
export class KeptSteps {
  private kept: Kept[] = [];

  constructor(
    private readonly repository: RunsRepository,
    private readonly transactions: TransactionRunner,
    private readonly lease: Lease,
    private readonly leaseSeconds: number,
    /** The run's steps stored so far (its `step_count`). */
    private storedCount: number,
  ) {}

  /** The steps stored so far; kept ones are not counted until they are stored. */
  get stored(): number {
    return this.storedCount;
  }

  /** Keeps a step to be stored with the next ones; the sequence it will get. */
  keep(stored: Step): number {
    this.kept.push({ stored });
    return this.storedCount + this.kept.length;
  }

  /**
   * Runs `announce` once the kept step with this sequence is stored. False when no kept step
   * has it (it was stored by another write): the caller announces it itself.
   */
  announceWhenStored(sequence: number, announce: (sequence: number) => Promise<void>): boolean {
    const entry = this.kept[sequence - this.storedCount - 1];
    if (!entry) return false;
    entry.announce = announce;
    return true;
  }

  /**
   * Stores the kept steps (one statement, fenced by the lease) and announces each after the
   * commit: the caller's transaction's, where there is one. LeaseLostError: nothing stored.
   */
  async flush(): Promise<void> {
    const batch = this.take();
    if (batch.length === 0) return;
    const sequences = await this.repository.appendRunSteps(this.lease, batchSteps(batch), this.leaseSeconds);
    if (sequences === null) throw new LeaseLostError();
    this.markStored(batch, sequences[sequences.length - 1]!);
  }

  /**
   * Takes the kept steps for a write that stores them in its own statement under the lease (the
   * settle's); `markStored` once it did. A batch never stored is lost with the segment, as `flush`'s
   * is on a lost lease.
   */
  take(): KeptBatch {
    const batch = this.kept;
    this.kept = [];
    return batch;
  }

  /**
   * Counts a taken batch as stored in order, its last step at sequence `last`, and announces
   * each after the commit (the caller's transaction's, where there is one; `after`: the caller
   * queues the announcements itself).
   */
  markStored(
    batch: KeptBatch,
    last: number,
    after: (effect: () => void | Promise<void>) => void = (e) => this.transactions.afterCommit(e),
  ): void {
    this.storedCount = last;
    const first = last - batch.length + 1;
    batch.forEach((k, i) => {
      const announce = k.announce;
      if (announce) after(() => announce(first + i));
    });
  }

  /** Counts steps another write stored under the lease (a write call's, with its effect). */
  storedBy(sequences: readonly number[]): void {
    if (sequences.length > 0) this.storedCount = sequences[sequences.length - 1]!;
  }
}

/** What a write stores of a taken batch. */
export function batchSteps(batch: KeptBatch): Step[] {
  return batch.map((k) => k.stored);
}

/** The provider, storing the segment's kept steps before each call (the REQUEST step above all). */
export function storingFirst(provider: Provider, steps: KeptSteps): Provider {
  return {
    name: provider.name,
    complete: async (request, options) => {
      await steps.flush();
      return provider.complete(request, options);
    },
  };
}
