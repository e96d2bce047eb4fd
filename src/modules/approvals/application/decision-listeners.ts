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
}

/** Lets other modules follow decisions without this module knowing them (as RunSettlements does for settles). */
@Injectable()
export class DecisionListeners {
  private readonly listeners: DecisionListener[] = [];

  register(listener: DecisionListener): void {
    this.listeners.push(listener);
  }

  async notify(event: RecordedDecision): Promise<void> {
    for (const listener of this.listeners) await listener.onDecisionRecorded(event);
  }
}
