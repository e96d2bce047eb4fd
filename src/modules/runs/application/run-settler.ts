import { Injectable } from '@nestjs/common';
import type { PendingTurn } from '../../../agent';
import type { ErrorCode } from '../../../common/error-codes';
import { TransactionRunner, type Tx } from '../../../platform/database/transaction-runner';
import type { RunStatus, TerminationReason } from '../core/run-status';
import {
  RunsRepository,
  type Counters,
  type Lease,
  type SettledRow,
  type StoredStep,
} from '../persistence/runs.repository';
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

/**
 * The one way a run settles, whoever settles it (the executor, a worker handing a decision
 * back, the reaper, a cancel, a refusal that fails a process run): ONE transaction writes the
 * run's new state, the bookkeeping of the decision it was carrying out and what in-process
 * listeners (the chat) write of it; after the commit the listeners' own events, then the trace,
 * the progress stream and the inbox hear of it. A write that changed no row (fenced out,
 * already settled) tells nobody.
 */
@Injectable()
export class RunSettler {
  constructor(
    private readonly repository: RunsRepository,
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
    const runId = 'lease' in guard ? guard.lease.runId : guard.runId;
    const batch = kept?.take() ?? [];
    const row = await this.write(guard, settlement, batchSteps(batch));
    if (!row) return null;
    if (batch.length > 0) kept?.markStored(batch, row.stepCount);
    const event = settledEvent(runId, settlement, row);
    if (row.hadDecision) await this.settlements.keepDecision(event);
    await this.settlements.notify(event);
    // why: the inbox moves when a run starts waiting or may have stopped waiting without a
    // decision (a cancel, a waiting run failed); a running run that finishes was never in it.
    const movesInbox =
      !('lease' in guard) || (settlement.kind !== 'COMPLETED' && settlement.kind !== 'FAILED');
    tx.afterCommit(() => this.announce(event, settlement, row, movesInbox));
    return row;
  }

  /**
   * The reaper's pass: one statement requeues or fails every run whose lease expired, and the
   * failed ones are settled like any other (decision outcome in the same transaction).
   */
  async reap(limit: number, messageOf: (run: ReapedRun) => string): Promise<ReapedRun[]> {
    return this.transactions.run(async (tx) => {
      const reaped = await this.reaping.reapExpired(limit);
      for (const run of reaped.filter((r) => r.status === 'FAILED')) {
        const settlement: Settlement = {
          kind: 'FAILED',
          reason: run.terminationReason ?? 'NOT_RETRYABLE',
          message: messageOf(run),
        };
        const event = settledEvent(run.id, settlement, run);
        if (run.hadDecision) await this.settlements.keepDecision(event);
        await this.settlements.notify(event);
        tx.afterCommit(() => this.announce(event, settlement, run, false));
      }
      return reaped;
    });
  }

  private async write(
    guard: SettleGuard,
    s: Settlement,
    steps: readonly StoredStep[],
  ): Promise<SettledRow | null> {
    if (!('lease' in guard)) {
      if (steps.length > 0) throw new Error("a segment's steps are stored under its lease");
      if (s.kind === 'CANCELLED') return this.repository.cancel(guard.runId, guard.from);
      if (s.kind !== 'FAILED') throw new Error(`a ${s.kind} settle needs the run's lease`);
      return this.repository.settleFrom(guard.runId, guard.from, {
        status: 'FAILED',
        reason: s.reason,
        errorMessage: s.message,
      });
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
        );
      case 'FAILED':
        return this.repository.settle(
          lease,
          { status: 'FAILED', reason: s.reason, errorMessage: s.message, counters: s.counters },
          steps,
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
        );
      case 'HANDED_BACK':
        if (steps.length > 0) throw new Error('a hand-back stores no steps');
        return this.repository.handBack(lease, s.status, s.checkpoint, s.code);
      case 'CANCELLED':
        throw new Error('a cancel is guarded on the statuses it may cancel, not on a lease');
    }
  }

  private async announce(
    event: RunSettled,
    s: Settlement,
    row: SettledRow,
    movesInbox: boolean,
  ): Promise<void> {
    await this.events.settled(terminalOf(event.runId, s, row), {
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
