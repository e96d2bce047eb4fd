import { Injectable } from '@nestjs/common';
import type { ErrorCode } from '../../../common/error-codes';
import type { RunStatus } from '../core/run-status';
import type { SettleRider } from '../persistence/run-rows';

/** A run stopped moving: it settled, paused, or a recorded decision was handed back. */
export interface RunSettled {
  readonly runId: string;
  readonly status: RunStatus;
  /** The final answer as the runtime produced it (not the privacy-filtered stored copy). */
  readonly answer?: string | null;
  readonly errorMessage?: string | null;
  /** Set when a worker handed a recorded decision back (the run waits again). */
  readonly handBack?: ErrorCode;
  /**
   * Whether the run was started as a chat turn: only such a run can be a conversation's active
   * run, so listeners about conversations may skip the others (undefined: not known).
   */
  readonly chatTurn?: boolean;
}

/**
 * Told inside the transaction that settles a run, so what it writes (the chat's answer message)
 * commits with the run's new state or not at all; what it publishes it queues after the commit,
 * before anyone else hears of the settle. why: a reader in the gap between the settle's commit
 * and a later notification saw a finished run whose answer the run does not keep (privacy
 * levels NONE and METADATA after a decision), and the answer was lost.
 */
export interface RunSettlementListener {
  onRunSettled(event: RunSettled): Promise<void>;
  /**
   * Whether `onRunSettled` would do anything for `event`, asked before the settle's write (its
   * `chatTurn` may be undefined: not known yet). Leave it out to be told of every settle.
   * why: a settle no listener writes for is one statement in autocommit, not a transaction.
   */
  listensTo?(event: RunSettled): Promise<boolean>;
  /**
   * The run's approval deadline passed and the expiry is settling it (continued as denied, or
   * failed), inside the expiry's transaction, before the run moves on.
   */
  onApprovalExpired?(runId: string): Promise<void>;
}

/**
 * Lets other modules follow runs without the runs module knowing them. The approvals module
 * registers the decision's bookkeeping, a write that rides in every settling statement (so it
 * commits with the run's new state without a statement of its own); listeners (the chat, the
 * webhooks) register at start-up and are awaited inside the settle's transaction in this
 * process, so a failure of either rolls the settle back (the run keeps its lease and is settled
 * again, or reaped), never half-applied.
 */
@Injectable()
export class RunSettlements {
  private readonly listeners: RunSettlementListener[] = [];
  private decisionRider: SettleRider | null = null;

  register(listener: RunSettlementListener): void {
    this.listeners.push(listener);
  }

  /** The decision's bookkeeping (approvals' persistence): rides in every settling statement. */
  keepDecisionsWith(rider: SettleRider): void {
    this.decisionRider = rider;
  }

  get rider(): SettleRider | null {
    return this.decisionRider;
  }

  /** Inside the expiry's transaction, for a run whose approval deadline passed. */
  async expired(runId: string): Promise<void> {
    for (const listener of this.listeners) await listener.onApprovalExpired?.(runId);
  }

  /**
   * Whether any listener has something to do when `event` settles (undefined `chatTurn`: not
   * known). A settle nobody listens to needs no transaction around its one statement.
   */
  async heard(event: RunSettled): Promise<boolean> {
    for (const listener of this.listeners) {
      if (!listener.listensTo || (await listener.listensTo(event))) return true;
    }
    return false;
  }

  /** Inside the settle's transaction, for every run that settled. */
  async notify(event: RunSettled): Promise<void> {
    for (const listener of this.listeners) await listener.onRunSettled(event);
  }
}
