import { Injectable, Logger } from '@nestjs/common';
import { digestsEqual, type PendingTurn } from '../../../agent';
import type { ErrorCode } from '../../../common/error-codes';
import { PrincipalsService } from '../../auth';
import { ConfigurationsService, type ConfigurationView } from '../../configurations';
import { DecidedRuns, RunSettler, type ClaimedRun, type DecidedCheckpoint } from '../../runs';
import type { DecisionView } from '../core/decision-view';
import { DecisionsRepository } from '../persistence/decisions.repository';
import { DeciderGate } from './decider-gate';

/** Why a process run meeting four-eyes stopped (the inline path says the same). */
export const PROCESS_STOPPED_MESSAGE = 'Stopped: the configuration now requires a second approver';

/**
 * The durable path's second half, as policy: for each recorded decision the runs module
 * claimed for this process, check 7 (no process run under four-eyes) and checks 12-14 against the stored decision (and the configuration,
 * which may have changed since), then the run is carried out or handed back to its waiting
 * state with the refusal's code (DecidedRuns).
 */
@Injectable()
export class RecordedDecisions {
  private readonly logger = new Logger(RecordedDecisions.name);

  constructor(
    private readonly decided: DecidedRuns,
    private readonly decisions: DecisionsRepository,
    private readonly configurations: ConfigurationsService,
    private readonly principals: PrincipalsService,
    private readonly gate: DeciderGate,
    private readonly settler: RunSettler,
  ) {}

  /**
   * Picks up at most `limit` recorded decisions; with `olderThanSeconds` only those recorded at
   * least that long ago (the API's reconcile when no worker is live). Returns how many it took.
   */
  async pickUp(claimedBy: string, limit: number, olderThanSeconds = 0): Promise<number> {
    const claimed = await this.decided.claimRecorded(claimedBy, limit, olderThanSeconds);
    for (const claim of claimed) {
      try {
        await this.carryOut(claim, 'fresh');
      } catch (e) {
        this.logger.error({ runId: claim.run.id, err: e }, 'recorded decision could not be carried out');
      }
    }
    return claimed.length;
  }

  /**
   * Continues a run requeued while it held a decision (its checkpoint still `decided`): where
   * the decision's step was never recorded, checks 12-14 never ran either (its worker was cut
   * off right after the claim), so they run here first.
   */
  async resume(claim: ClaimedRun): Promise<void> {
    await this.carryOut(claim, 'requeued');
  }

  /** A fresh pickup has no step yet; a requeued run may have one (its checks then passed). */
  private async carryOut(claim: ClaimedRun, pickup: 'fresh' | 'requeued'): Promise<void> {
    const decided = this.decided.openDecided(claim);
    if ('unusable' in decided) return this.decided.fail(claim, decided.unusable);
    const decision = await this.decisions.findById(decided.decisionId);
    if (!decision && pickup === 'requeued')
      return this.decided.fail(claim, 'The recorded decision is missing');
    const stepRecorded = pickup === 'requeued' && (await this.decided.stepRecorded(claim));
    const configuration = await this.configurations.getById(claim.run.configurationId);
    if (!stepRecorded) {
      // why: as on the inline path (check 7): a process run that meets four-eyes is stopped,
      // whatever the decision; the configuration may have changed since it was recorded.
      if (claim.run.processPin !== null && configuration.requireSecondApprover && !configuration.deletedAt) {
        await this.settler.settle(
          { lease: claim.lease },
          { kind: 'FAILED', reason: 'APPROVAL_DENIED', message: PROCESS_STOPPED_MESSAGE },
        );
        this.logger.warn({ runId: claim.run.id }, 'process run stopped: four-eyes on its configuration');
        return;
      }
      const refusal = await this.refusal(claim, decided, decision, configuration);
      if (refusal) {
        if (await this.decided.handBack(claim, decided, refusal)) {
          this.logger.warn({ runId: claim.run.id, code: refusal }, 'recorded decision handed back');
        }
        return;
      }
    }
    await this.decided.carryOut(claim, decided, decision!.decidedBy, configuration, stepRecorded);
  }

  /** Checks 12-14 against the stored decision; the hand-back code, or null to go on. */
  private async refusal(
    claim: ClaimedRun,
    decided: DecidedCheckpoint,
    decision: DecisionView | null,
    configuration: ConfigurationView,
  ): Promise<ErrorCode | null> {
    if (!decision) return 'NOT_AUDITABLE';
    if (configuration.deletedAt) return 'CONFIGURATION_GONE';
    if (!configuration.isActive) return 'CONFIGURATION_INACTIVE';
    const turnDigest = claim.run.turnDigest;
    if (!turnDigest || !digestsEqual(turnDigest, decision.turnDigest)) return 'STALE_TURN';
    // why: a denial writes nothing, so only approvals and inputs meet the decider gate.
    if (decided.decision.kind === 'deny') return null;
    const decider = decision.decidedBy === null ? null : await this.principals.load(decision.decidedBy);
    const pending = decided.state.pending as PendingTurn;
    if (!decider || !(await this.gate.permits(decider, pending))) {
      return pending.kind === 'INPUT' ? 'SUBMITTER_NOT_PERMITTED' : 'APPROVER_NOT_PERMITTED';
    }
    return null;
  }
}
