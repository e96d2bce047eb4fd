import { Injectable } from '@nestjs/common';
import type { RunView } from '../../runs';
import type { DecisionView } from '../core/decision-view';

/** A decision just written, with the run as the decider saw it (still on the decided turn). */
export interface RecordedDecision {
  readonly decision: DecisionView;
  readonly run: RunView;
}

/**
 * Told inside the transaction that records a decision (inline claim or durable record), so
 * what a listener writes (the webhooks' outbox row) commits with the decision or not at all.
 */
export interface DecisionListener {
  onDecisionRecorded(event: RecordedDecision): Promise<void>;
  /**
   * Whether it would do anything for a decision of this kind, asked before the claim; absent:
   * always. why: where nobody would, the claim and its record are one statement without a
   * transaction around them.
   */
  listensTo?(kind: string): Promise<boolean>;
}

/** Lets other modules follow decisions without this module knowing them (as RunSettlements does for settles). */
@Injectable()
export class DecisionListeners {
  private readonly listeners: DecisionListener[] = [];

  register(listener: DecisionListener): void {
    this.listeners.push(listener);
  }

  /** Whether any listener would do anything for a decision of this kind (`listensTo`). */
  async heard(kind: string): Promise<boolean> {
    for (const listener of this.listeners) {
      if (!listener.listensTo || (await listener.listensTo(kind))) return true;
    }
    return false;
  }

  async notify(event: RecordedDecision): Promise<void> {
    for (const listener of this.listeners) await listener.onDecisionRecorded(event);
  }
}
