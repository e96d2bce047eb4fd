import { Injectable } from '@nestjs/common';
import type { BudgetScope } from '../../../agent';
import type { ConfigurationSettings } from '../../configurations';
import { reachedCap, utcDayStart } from '../core/budget.policy';
import type { RunView } from '../core/run-view';
import { RunUsageRepository } from '../persistence/run-usage.repository';

/**
 * The token budget check the runtime asks before each model call (`AgentPorts.budgetReached`),
 * on every path a run executes (a start, an inline or a worker's continuation, a requeue).
 */
@Injectable()
export class RunBudget {
  constructor(private readonly usage: RunUsageRepository) {}

  /** The cap this run has reached with `runTokens` used so far, or null. */
  async reached(
    run: RunView,
    configuration: ConfigurationSettings,
    runTokens: number,
  ): Promise<BudgetScope | null> {
    return reachedCap(configuration, runTokens, async () => {
      const earlier = await this.usage.ownerTokensSince(
        run.ownerId,
        run.configurationId,
        utcDayStart(new Date()),
        run.id,
      );
      return earlier + runTokens;
    });
  }
}
