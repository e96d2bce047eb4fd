import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Decision as AgentDecision } from '../../../agent';
import { Refusal } from '../../../common/refusal';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { ConfigurationsService, type ConfigurationSettings } from '../../configurations';
import {
  choosePath,
  RunDecisions,
  RunSettlements,
  RunSettler,
  type ClaimedDecision,
  type DecisionOnRun,
  type RunView,
} from '../../runs';
import { decisionFingerprint } from '../core/fingerprint';
import { DecisionRecords } from './decision-records';

/** What the model is told declined the calls, and what a failed run says. */
export const EXPIRED_DECIDER = 'nobody (the deadline passed)';
export const EXPIRED_MESSAGE = 'Nobody decided before the deadline';

/**
 * Deadlines (docs/decisions.md, "Deadlines"): settles approval waits whose `expires_at`
 * passed, by PostgreSQL's clock. Each run is taken in a transaction of its own with
 * `FOR UPDATE SKIP LOCKED`, so every instance may sweep and each run is settled once; a
 * decision holding the row either wins (its claim commits first; the run no longer waits) or
 * loses on the deadline in its own claim. DENY claims the run like a denial in nobody's name
 * (reason EXPIRED), on the path a decision without a requested path would take; FAIL (and a
 * configuration that can no longer continue) settles it FAILED. Either way a decision record
 * of kind EXPIRE with no decider is written in the same transaction.
 */
@Injectable()
export class ApprovalExpiry {
  private readonly logger = new Logger(ApprovalExpiry.name);

  constructor(
    private readonly runDecisions: RunDecisions,
    private readonly settler: RunSettler,
    private readonly settlements: RunSettlements,
    private readonly records: DecisionRecords,
    private readonly configurations: ConfigurationsService,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Settles up to `limit` overdue waits; how many it settled. */
  async sweepOnce(limit: number): Promise<number> {
    let settled = 0;
    while (settled < limit && (await this.expireOne())) settled++;
    if (settled > 0) this.logger.log(`settled ${settled} approval wait(s) past their deadline`);
    return settled;
  }

  /** One overdue wait, locked and settled in one transaction; false when none is due. */
  private async expireOne(): Promise<boolean> {
    let continuation: { claimed: ClaimedDecision; configuration: ConfigurationSettings } | null = null;
    const found = await this.transactions.run(async () => {
      const run = await this.runDecisions.lockDueExpiry();
      if (!run) return false;
      const configuration = await this.configurations.getById(run.configurationId);
      await this.settlements.expired(run.id);
      const canContinue = configuration.isActive && !configuration.deletedAt;
      if (configuration.onApprovalTimeout === 'FAIL' || !canContinue) {
        await this.fail(run);
        return true;
      }
      const claimed = await this.deny(run);
      if (claimed) continuation = { claimed, configuration };
      return true;
    });
    const taken = continuation as { claimed: ClaimedDecision; configuration: ConfigurationSettings } | null;
    if (taken) this.runDecisions.continueClaimed(taken.claimed, taken.configuration);
    return found;
  }

  /** The run continues as denied (EXPIRED); the inline claim to continue after the commit. */
  private async deny(run: RunView): Promise<ClaimedDecision | null> {
    let state;
    try {
      state = this.runDecisions.openSuspended(run);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      await this.fail(run);
      return null;
    }
    const decision: AgentDecision = { kind: 'deny', decidedBy: EXPIRED_DECIDER, reason: 'EXPIRED' };
    const on: DecisionOnRun = {
      run,
      state,
      turnDigest: run.turnDigest!,
      decision,
      deciderId: null,
      decisionId: randomUUID(),
      expiry: true,
    };
    const live = await this.runDecisions.liveWorkers();
    const path = choosePath(null, this.config.decisionPath, live);
    const { take } = await this.records.take(null, run, this.entry(on.decisionId, run, path));
    if (path === 'DURABLE') {
      await this.runDecisions.record(on, take);
      return null;
    }
    return this.runDecisions.claim(on, take);
  }

  /** FAILED through the settler, guarded on the wait; the EXPIRE record carries the outcome. */
  private async fail(run: RunView): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.records.write(null, run, this.entry(randomUUID(), run, 'INLINE'), 'FAILED');
      await this.settler.settleIn(
        tx,
        { runId: run.id, from: ['WAITING_FOR_APPROVAL'] },
        { kind: 'FAILED', reason: 'APPROVAL_DENIED', message: EXPIRED_MESSAGE },
      );
    });
  }

  private entry(id: string, run: RunView, path: 'INLINE' | 'DURABLE') {
    return {
      id,
      kind: 'EXPIRE' as const,
      fingerprint: decisionFingerprint({ kind: 'EXPIRE', turnDigest: run.turnDigest! }),
      path,
    };
  }
}
