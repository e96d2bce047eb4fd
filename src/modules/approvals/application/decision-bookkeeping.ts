import { Injectable, OnModuleInit } from '@nestjs/common';
import { RunSettlements, type RunSettled } from '../../runs';
import { DecisionsRepository } from '../persistence/decisions.repository';

/**
 * Keeps the decision record in step with its run (docs/decisions.md, "The decision record"):
 * when a run a decision continued settles, however and wherever (its continuation, a worker
 * that took over, the reaper, a cancel), the decision it was carrying out gets the status the
 * run settled in as its outcome, or its hand-back code, inside the same transaction. That
 * decision is the run's open one: at most one per run has neither an outcome nor a hand-back.
 */
@Injectable()
export class DecisionBookkeeping implements OnModuleInit {
  constructor(
    private readonly settlements: RunSettlements,
    private readonly decisions: DecisionsRepository,
  ) {}

  onModuleInit(): void {
    this.settlements.keepDecisionsWith({ settled: (event) => this.settled(event) });
  }

  async settled(event: RunSettled): Promise<void> {
    if (event.handBack) await this.decisions.handBackOpen(event.runId, event.handBack);
    else await this.decisions.settleOpen(event.runId, event.status);
  }
}
