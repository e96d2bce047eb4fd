import { Inject, Injectable, Logger } from '@nestjs/common';
import { decisionStep, digestsEqual, type PendingTurn, type Step } from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { ErrorCode } from '../../../common/error-codes';
import { PrincipalsService } from '../../auth';
import { ConfigurationsService, type ConfigurationView } from '../../configurations';
import {
  RunEventsPublisher,
  RunExecutor,
  RunSettler,
  RunsRepository,
  StateVault,
  type Checkpoint,
  type ClaimedRun,
} from '../../runs';
import type { DecisionEntity } from '../persistence/decision.entity';
import { DecisionsRepository } from '../persistence/decisions.repository';
import { DeciderGate } from './decider-gate';

type Decided = Extract<Checkpoint, { kind: 'decided' }>;

/**
 * The durable path's second half: claims DECISION_RECORDED runs (FOR UPDATE SKIP LOCKED), runs
 * checks 12-14 against the stored decision (plus the configuration, which may have changed
 * since), and either continues the run under a new lease in this process or hands it back to
 * its waiting state with `handBack {code, at}` and a SETTLED on the progress stream.
 */
@Injectable()
export class RecordedDecisions {
  private readonly logger = new Logger(RecordedDecisions.name);

  constructor(
    private readonly runs: RunsRepository,
    private readonly decisions: DecisionsRepository,
    private readonly configurations: ConfigurationsService,
    private readonly principals: PrincipalsService,
    private readonly gate: DeciderGate,
    private readonly vault: StateVault,
    private readonly executor: RunExecutor,
    private readonly events: RunEventsPublisher,
    private readonly settler: RunSettler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Picks up at most `limit` recorded decisions; with `olderThanSeconds` only those recorded at
   * least that long ago (the API's reconcile when no worker is live). Returns how many it took.
   */
  async pickUp(claimedBy: string, limit: number, olderThanSeconds = 0): Promise<number> {
    const claimed = await this.runs.claimRecorded(
      claimedBy,
      this.config.runLeaseSeconds,
      limit,
      olderThanSeconds,
    );
    for (const c of claimed) {
      try {
        await this.carryOut(c);
      } catch (e) {
        this.logger.error({ runId: c.run.id, err: e }, 'recorded decision could not be carried out');
      }
    }
    return claimed.length;
  }

  private async carryOut(claimed: ClaimedRun): Promise<void> {
    const { run } = claimed;
    let checkpoint: Checkpoint;
    try {
      checkpoint = this.vault.open(run.id, run.checkpoint);
    } catch {
      await this.fail(claimed, 'The recorded decision cannot be read');
      return;
    }
    if (checkpoint.kind !== 'decided' || !checkpoint.state.pending) {
      await this.fail(claimed, 'The run holds no recorded decision');
      return;
    }
    const decision = await this.decisions.findById(checkpoint.decisionId);
    const configuration = await this.configurations.getById(run.configurationId);
    const refusal = await this.refusal(run.turnDigest, checkpoint, decision, configuration);
    if (refusal) {
      await this.handBack(claimed, checkpoint, refusal);
      return;
    }
    await this.continueDecided(claimed, checkpoint, decision!, configuration);
  }

  /**
   * Continues a claimed run whose checkpoint holds a decision (a fresh pickup, or a run
   * requeued before its first write): records the APPROVAL / INPUT step where it is not
   * recorded yet, then runs the continuation with the decision's outcome kept on its record.
   * A decision without its step never passed checks 12-14 (a recorded decision whose worker was
   * cut off right after claiming it): they run here first, and a refusal hands it back.
   */
  async resume(claimed: ClaimedRun, checkpoint: Decided): Promise<void> {
    const decision = await this.decisions.findById(checkpoint.decisionId);
    if (!decision) {
      await this.fail(claimed, 'The recorded decision is missing');
      return;
    }
    const configuration = await this.configurations.getById(claimed.run.configurationId);
    if (!(await this.decisions.hasDecisionStep(claimed.run.id, decision))) {
      const refusal = await this.refusal(claimed.run.turnDigest, checkpoint, decision, configuration);
      if (refusal) return this.handBack(claimed, checkpoint, refusal);
    }
    await this.continueDecided(claimed, checkpoint, decision, configuration);
  }

  private async continueDecided(
    { run, lease }: ClaimedRun,
    checkpoint: Decided,
    decision: DecisionEntity,
    configuration: ConfigurationView,
  ): Promise<void> {
    if (!(await this.decisions.hasDecisionStep(run.id, decision))) {
      const step = decisionStep(checkpoint.decision, checkpoint.state, decision.decidedBy);
      const sequence = await this.runs.appendStep(lease, step, this.config.runLeaseSeconds);
      if (sequence === null) return; // fenced out: another process holds the run now
      await this.publishStep(run.id, step, sequence, run.turn);
    }
    const current = (await this.runs.findById(run.id)) ?? run;
    this.executor.launch({ lease, run: current, configuration, checkpoint });
  }

  /** Checks 12-14 against the stored decision; the hand-back code, or null to go on. */
  private async refusal(
    turnDigest: string | null,
    checkpoint: Decided,
    decision: DecisionEntity | null,
    configuration: ConfigurationView,
  ): Promise<ErrorCode | null> {
    if (!decision) return 'NOT_AUDITABLE';
    if (configuration.deletedAt) return 'CONFIGURATION_GONE';
    if (!configuration.isActive) return 'CONFIGURATION_INACTIVE';
    if (!turnDigest || !digestsEqual(turnDigest, decision.turnDigest)) return 'STALE_TURN';
    // why: a denial writes nothing, so only approvals and inputs meet the decider gate.
    if (checkpoint.decision.kind === 'deny') return null;
    const decider = await this.principals.load(decision.decidedBy);
    const pending = checkpoint.state.pending as PendingTurn;
    if (!decider || !(await this.gate.permits(decider, pending))) {
      return pending.kind === 'INPUT' ? 'SUBMITTER_NOT_PERMITTED' : 'APPROVER_NOT_PERMITTED';
    }
    return null;
  }

  /**
   * Releases the run to its waiting state with the paused state it had, and says why; the
   * decision is marked handed back in the same transaction (its turn is open again).
   */
  private async handBack({ run, lease }: ClaimedRun, checkpoint: Decided, code: ErrorCode): Promise<void> {
    const pending = checkpoint.state.pending as PendingTurn;
    const handedBack = await this.settler.settle(
      { lease },
      {
        kind: 'HANDED_BACK',
        status: pending.kind === 'APPROVAL' ? 'WAITING_FOR_APPROVAL' : 'WAITING_FOR_INPUT',
        checkpoint: this.vault.seal(run.id, { v: 1, kind: 'state', state: checkpoint.state }),
        pending,
        code,
      },
    );
    if (handedBack) this.logger.warn({ runId: run.id, code }, 'recorded decision handed back');
  }

  /** A recorded decision whose state is gone cannot be handed back: the run fails. */
  private async fail({ lease }: ClaimedRun, message: string): Promise<void> {
    await this.settler.settle({ lease }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message });
  }

  private async publishStep(runId: string, step: Step, sequence: number, turn: number): Promise<void> {
    await this.events.step(runId, { ...step, sequence, at: new Date().toISOString() }, 'RUNNING', turn);
  }
}
