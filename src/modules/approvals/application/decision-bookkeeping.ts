import { Injectable, OnModuleInit } from '@nestjs/common';
import { RunSettlements } from '../../runs';
import { DecisionsRepository } from '../persistence/decisions.repository';

/**
 * Keeps the decision record in step with its run (docs/decisions.md, "The decision record"):
 * when a run a decision continued settles, however and wherever (its continuation, a worker
 * that took over, the reaper, a cancel), the decision it was carrying out gets the status the
 * run settled in as its outcome, or its hand-back code, in the very statement that settles the
 * run (`DecisionsRepository.SETTLE_RIDER`). That decision is the run's open one: at most one
 * per run has neither an outcome nor a hand-back.
 */
@Injectable()
export class DecisionBookkeeping implements OnModuleInit {
  constructor(private readonly settlements: RunSettlements) {}

  onModuleInit(): void {
    this.settlements.keepDecisionsWith(DecisionsRepository.SETTLE_RIDER);
  }
}
