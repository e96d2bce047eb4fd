import { Injectable, Logger } from '@nestjs/common';
import type { ErrorCode } from '../../../common/error-codes';
import type { RunStatus } from '../core/run-status';

/** A run stopped moving: it settled, paused, or a recorded decision was handed back. */
export interface RunSettled {
  readonly runId: string;
  readonly status: RunStatus;
  /** The final answer as the runtime produced it (not the privacy-filtered stored copy). */
  readonly answer?: string | null;
  readonly errorMessage?: string | null;
  /** Set when a worker handed a recorded decision back (the run waits again). */
  readonly handBack?: ErrorCode;
}

/** Told, in the process that wrote it, when a run settled; before anyone else hears of it. */
export interface RunSettlementListener {
  onRunSettled(event: RunSettled): Promise<void>;
}

/**
 * Kept inside the transaction that settles a run whose continuation carried a decision: the
 * decision's bookkeeping (its outcome, or its hand-back) commits with the run's new state or
 * not at all. A failure here rolls the settle back.
 */
export interface DecisionBookkeeper {
  settled(event: RunSettled): Promise<void>;
}

/**
 * Lets other modules follow runs without the runs module knowing them. The approvals module
 * registers the one bookkeeper (inside the settle's transaction); listeners (the chat) register
 * at start-up and are awaited after every settle committed in this process, before the SETTLED
 * event goes out. A listener's failure is logged, never the run's.
 */
@Injectable()
export class RunSettlements {
  private readonly logger = new Logger(RunSettlements.name);
  private readonly listeners: RunSettlementListener[] = [];
  private bookkeeper: DecisionBookkeeper | null = null;

  register(listener: RunSettlementListener): void {
    this.listeners.push(listener);
  }

  keepDecisionsWith(bookkeeper: DecisionBookkeeper): void {
    this.bookkeeper = bookkeeper;
  }

  /** Inside the settle's transaction, for a run a decision continued. */
  async keepDecision(event: RunSettled): Promise<void> {
    await this.bookkeeper?.settled(event);
  }

  async notify(event: RunSettled): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener.onRunSettled(event);
      } catch (e) {
        this.logger.error({ runId: event.runId, err: e }, 'a run settlement listener failed');
      }
    }
  }
}
