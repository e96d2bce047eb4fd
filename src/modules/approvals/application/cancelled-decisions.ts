import { Injectable, OnModuleInit } from '@nestjs/common';
import { RunSettlements, type RunSettled } from '../../runs';
import { DecisionsRepository } from '../persistence/decisions.repository';

/**
 * Keeps a decision's outcome on record when a cancel cut its continuation short
 * (docs/decisions.md, "The decision record": the status the continuation settled in).
 * The continuation cannot record it where it runs in another process than the cancel (a
 * worker, another API instance): there it only finds its lease gone and stops. Registered
 * with RunSettlements, so it runs in the process that wrote the cancel, right after it.
 */
@Injectable()
export class CancelledDecisions implements OnModuleInit {
  constructor(
    private readonly settlements: RunSettlements,
    private readonly decisions: DecisionsRepository,
  ) {}

  onModuleInit(): void {
    this.settlements.register({ onRunSettled: (e) => this.onRunSettled(e) });
  }

  /** A cancelled run's decision on the turn it was at (no outcome, not handed back) gets CANCELLED. */
  async onRunSettled(event: RunSettled): Promise<void> {
    if (event.status !== 'CANCELLED') return;
    await this.decisions.settleOpenOnCurrentTurn(event.runId, 'CANCELLED');
  }
}
