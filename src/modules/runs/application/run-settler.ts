import { Injectable } from '@nestjs/common';
import { capText, type PendingTurn } from '../../../agent';
import type { ErrorCode } from '../../../common/error-codes';
import { TransactionRunner, type Tx } from '../../../platform/database/transaction-runner';
import type { RunStatus, TerminationReason } from '../core/run-status';
import { RunSettlingRepository } from '../persistence/run-settling.repository';
import { type Counters, type Lease, type SettledRow, type StoredStep } from '../persistence/run-rows';
import { batchSteps, type KeptSteps } from './kept-steps';
import { RunReapingRepository, type ReapedRun } from '../persistence/run-reaping.repository';
import { RunEventsPublisher, type TraceEvent } from './run-events';
import { RunSettlements, type RunSettled } from './run-settlements';

type WaitingStatus = 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT';

/** Where a run stops moving. */
export type Settlement =
  | {
      readonly kind: 'COMPLETED';
      readonly reason: TerminationReason;
      readonly truncated: boolean;
      /** What storage keeps (the privacy level's copy); `answer` is what listeners are told. */
      readonly storedAnswer: string | null;
      readonly answer: string;
      readonly counters: Counters;
    }
  | {
      readonly kind: 'FAILED';
      readonly reason: TerminationReason;
      readonly message: string;
      readonly counters?: Counters;
    }
  | {
      readonly kind: 'WAITING';
      readonly status: WaitingStatus;
      readonly checkpoint: string;
      readonly pending: PendingTurn;
      readonly counters: Counters;
    }
  | {
      readonly kind: 'HANDED_BACK';
      readonly status: WaitingStatus;
      readonly checkpoint: string;
      readonly pending: PendingTurn;
      readonly code: ErrorCode;
    }
  | { readonly kind: 'CANCELLED' };

/** Which row the write may change: the holder of a lease, or a run still in one of `from`. */
export type SettleGuard =
  { readonly lease: Lease } | { readonly runId: string; readonly from: readonly RunStatus[] };

/** A settle as written: the row it left and what listeners and subscribers are told of it. */
interface Written {
  readonly row: SettledRow;
  readonly event: RunSettled;
  readonly settlement: Settlement;
  readonly movesInbox: boolean;
}

/**
 * The one way a run settles, whoever settles it (the executor, a worker handing a decision
 * back, the reaper, a cancel, a refusal that fails a process run): ONE statement writes the
 * run's new state with the bookkeeping of the decision it was carrying out riding in it
 * (`RunSettlements.rider`), in a transaction with what in-process listeners (the chat, the
 * webhooks) write of it; after the commit the listeners' own events, then the trace, the
 * progress stream and the inbox hear of it. A write that changed no row (fenced out, already
 * settled) tells nobody.
 */
@Injectable()
export class RunSettler {
  constructor(
    private readonly repository: RunSettlingRepository,
    private readonly settlements: RunSettlements,
    private readonly events: RunEventsPublisher,
    private readonly transactions: TransactionRunner,
    private readonly reaping: RunReapingRepository,
  ) {}

  /** Settles in a transaction of its own; the row as left, or null when nothing changed. */
  async settle(guard: SettleGuard, settlement: Settlement): Promise<SettledRow | null> {
    return this.transactions.run((tx) => this.settleIn(tx, guard, settlement));
  }

  /**
   * Settles inside the caller's transaction; listeners and subscribers hear of it after its
   * commit. `kept`: the executing segment's steps not stored yet, stored by the same statement
   * under the lease and announced before the settle.
   */
  async settleIn(
    tx: Tx,
    guard: SettleGuard,
    settlement: Settlement,
    kept?: KeptSteps,
  ): Promise<SettledRow | null> {
    const written = await this.store(guard, settlement, kept);
    if (!written) return null;
    await this.settlements.notify(written.event);
    tx.afterCommit(() => this.announce(written));
    return written.row;
  }

  /**
   * An executing segment's own settle. When no listener has anything to do for it, its one
   * statement (the run, its last steps, the decision's outcome) commits on its own, with no
   * transaction around it; otherwise as `settle`, with the listeners inside.
   * why: a transaction around a single statement costs two more round trips per settle, a fifth
   * of a durable continuation's statements.
   */
  async settleSegment(
    lease: Lease,
    settlement: Settlement,
    kept: KeptSteps,
    chatTurn: boolean,
  ): Promise<SettledRow | null> {
    const heard = await this.settlements.heard({ ...eventOf(lease.runId, settlement), chatTurn });
    if (heard) return this.transactions.run((tx) => this.settleIn(tx, { lease }, settlement, kept));
    return this.transactions.runOneWrite(async (tx) => {
      const written = await this.store({ lease }, settlement, kept, (effect) => tx.afterCommit(effect));
      if (!written) return null;
      tx.afterCommit(() => this.announce(written));
      return written.row;
    });
  }

  /**
   * The reaper's pass: one statement requeues or fails every run whose lease expired (the
   * failed ones' decision outcomes riding in it), and the failed ones are told like any other
   * settle.
   */
  async reap(limit: number, messageOf: (run: ReapedRun) => string): Promise<ReapedRun[]> {
    return this.transactions.run(async (tx) => {
      const reaped = await this.reaping.reapExpired(limit, this.settlements.rider);
      for (const run of reaped.filter((r) => r.status === 'FAILED')) {
        const settlement: Settlement = {
          kind: 'FAILED',
          reason: run.terminationReason ?? 'NOT_RETRYABLE',
          message: messageOf(run),
        };
        const written: Written = {
          row: run,
          event: settledEvent(run.id, settlement, run),
          settlement,
          movesInbox: false,
        };
        await this.settlements.notify(written.event);
        tx.afterCommit(() => this.announce(written));
      }
      return reaped;
    });
  }

  /** The settling statement, with the segment's kept steps; null when it changed no row. */
  private async store(
    guard: SettleGuard,
    given: Settlement,
    kept?: KeptSteps,
    after?: (effect: () => void | Promise<void>) => void,
  ): Promise<Written | null> {
    const settlement = withStorableMessage(given);
    const runId = 'lease' in guard ? guard.lease.runId : guard.runId;
    const batch = kept?.take() ?? [];
    const row = await this.write(guard, settlement, batchSteps(batch));
    if (!row) return null;
    if (batch.length > 0) kept?.markStored(batch, row.stepCount, after);
    // why: the inbox moves when a run starts waiting or may have stopped waiting without a
    // decision (a cancel, a waiting run failed); a running run that finishes was never in it.
    const movesInbox =
      !('lease' in guard) || (settlement.kind !== 'COMPLETED' && settlement.kind !== 'FAILED');
    return { row, event: settledEvent(runId, settlement, row), settlement, movesInbox };
  }

  private async write(
    guard: SettleGuard,
    s: Settlement,
    steps: readonly StoredStep[],
  ): Promise<SettledRow | null> {
    const rider = this.settlements.rider;
    if (!('lease' in guard)) {
      if (steps.length > 0) throw new Error("a segment's steps are stored under its lease");
      if (s.kind === 'CANCELLED') return this.repository.cancel(guard.runId, guard.from, rider);
      if (s.kind !== 'FAILED') throw new Error(`a ${s.kind} settle needs the run's lease`);
      return this.repository.settleFrom(
        guard.runId,
        guard.from,
        { status: 'FAILED', reason: s.reason, errorMessage: s.message },
        rider,
      );
    }
    const { lease } = guard;
    switch (s.kind) {
      case 'COMPLETED':
        return this.repository.settle(
          lease,
          {
            status: 'COMPLETED',
            reason: s.reason,
            truncated: s.truncated,
            answer: s.storedAnswer,
            counters: s.counters,
          },
          steps,
          rider,
        );
      case 'FAILED':
        return this.repository.settle(
          lease,
          { status: 'FAILED', reason: s.reason, errorMessage: s.message, counters: s.counters },
          steps,
          rider,
        );
      case 'WAITING':
        return this.repository.suspend(
          lease,
          {
            status: s.status,
            checkpoint: s.checkpoint,
            turn: s.pending.turn,
            turnDigest: s.pending.digest,
            counters: s.counters,
          },
          steps,
          rider,
        );
      case 'HANDED_BACK':
        if (steps.length > 0) throw new Error('a hand-back stores no steps');
        return this.repository.handBack(lease, s.status, s.checkpoint, s.code, rider);
      case 'CANCELLED':
        throw new Error('a cancel is guarded on the statuses it may cancel, not on a lease');
    }
  }

  private async announce({ event, settlement, row, movesInbox }: Written): Promise<void> {
    await this.events.settled(terminalOf(event.runId, settlement, row), {
      stepCount: row.stepCount,
      status: event.status,
      turn: row.turn,
    });
    if (movesInbox) await this.events.inboxChanged(event.runId);
  }
}

function settledEvent(runId: string, s: Settlement, row: Pick<SettledRow, 'chatTurn'>): RunSettled {
  return { ...eventOf(runId, s), chatTurn: row.chatTurn };
}

function eventOf(runId: string, s: Settlement): RunSettled {
  switch (s.kind) {
    case 'COMPLETED':
      return { runId, status: 'COMPLETED', answer: s.answer };
    case 'FAILED':
      return { runId, status: 'FAILED', errorMessage: s.message };
    case 'WAITING':
      return { runId, status: s.status };
    case 'HANDED_BACK':
      return { runId, status: s.status, handBack: s.code };
    case 'CANCELLED':
      return { runId, status: 'CANCELLED' };
  }
}

function terminalOf(
  runId: string,
  s: Settlement,
  row: SettledRow,
): Extract<TraceEvent, { type: 'TERMINAL' }> {
  switch (s.kind) {
    case 'COMPLETED':
      return { type: 'TERMINAL', runId, outcome: 'DONE', finalContent: s.answer };
    case 'FAILED':
      return { type: 'TERMINAL', runId, outcome: 'ERROR', error: s.message };
    case 'WAITING':
    case 'HANDED_BACK':
      return {
        type: 'TERMINAL',
        runId,
        outcome: s.status === 'WAITING_FOR_APPROVAL' ? 'AWAITING_APPROVAL' : 'AWAITING_INPUT',
        pending: s.pending,
        waitingSince: new Date().toISOString(),
        expiresAt: row.expiresAt ? new Date(row.expiresAt).toISOString() : null,
        approvalsRequired: row.approvalsRequired ?? 1,
      };
    case 'CANCELLED':
      return { type: 'TERMINAL', runId, outcome: 'CANCELLED' };
  }
}

/** The most a run's `error_message` holds (a varchar(500) column). */
const ERROR_MESSAGE_MAX = 500;

/**
 * A failure whose message is longer than the run keeps, cut to fit (marked as cut); the row and
 * everyone told of the settle get the same text. why: a message built from configured values (a
 * provider URL of up to 2,000 characters) made the settle itself fail on the column's length.
 */
function withStorableMessage(s: Settlement): Settlement {
  if (s.kind !== 'FAILED' || s.message.length <= ERROR_MESSAGE_MAX) return s;
  return { ...s, message: capText(s.message, ERROR_MESSAGE_MAX) };
}
