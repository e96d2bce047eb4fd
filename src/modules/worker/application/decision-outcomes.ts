import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DecisionsRepository } from '../../approvals';
import type { RunEntity } from '../../runs';

/** Records the status a decision's continuation settled in (inside the settle's transaction, with a manager). */
export type OutcomeRecorder = (status: string, manager?: EntityManager) => Promise<void>;

/**
 * Keeps a decision's outcome on record (docs/decisions.md, "The decision record") when its
 * continuation was cut off and someone else finished it: a run requeued past its first write
 * no longer holds the decision in its checkpoint, and a run the reaper fails never reaches the
 * continuation's own settle. The open decision of a run is its newest one that has neither an
 * outcome nor a hand-back (at most one per run: the turn it decided is the one in progress).
 */
@Injectable()
export class DecisionOutcomes {
  constructor(private readonly decisions: DecisionsRepository) {}

  /** For a claimed run: the recorder of its open decision's outcome, or null when none is open. */
  async recorderFor(run: Pick<RunEntity, 'id' | 'hadDecision'>): Promise<OutcomeRecorder | null> {
    if (!run.hadDecision) return null;
    const open = await this.openDecision(run.id);
    return open ? (status, manager) => this.decisions.setOutcome(open, status, manager) : null;
  }

  /** For a run that was settled without its continuation (the reaper): the open decision gets `status`. */
  async settleOpen(runId: string, status: string): Promise<void> {
    const open = await this.openDecision(runId);
    if (open) await this.decisions.setOutcome(open, status);
  }

  private async openDecision(runId: string): Promise<string | null> {
    const open = (await this.decisions.listForRun(runId)).filter(
      (d) => d.outcome === null && d.handedBackCode === null,
    );
    return open.at(-1)?.id ?? null;
  }
}
