import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  decisionStep,
  digestsEqual,
  InvalidInputError,
  StateUnreadableError,
  validateInput,
  type Decision as AgentDecision,
  type Step,
  type SuspendedState,
} from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import type { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { parseUuid } from '../../../common/ids';
import { notFound, Refusal } from '../../../common/refusal';
import { assertJsonSize, ConfigurationsService, type ConfigurationView } from '../../configurations';
import {
  choosePath,
  needsWorkerCount,
  WorkSignal,
  RunEventsPublisher,
  RunExecutor,
  RunSettler,
  RunsRepository,
  StateVault,
  runAccess,
  type RunEntity,
} from '../../runs';
import { DecisionKind, earlyChecks } from '../core/decision-checks';
import { decisionFingerprint } from '../core/fingerprint';
import { DecisionEntity } from '../persistence/decision.entity';
import { DecisionsRepository } from '../persistence/decisions.repository';
import { DeciderGate } from './decider-gate';

export interface DecideCommand {
  readonly kind: DecisionKind;
  readonly runId: string;
  readonly turnDigest: string;
  readonly reason?: 'VARIANT' | 'SKIP' | null;
  readonly values?: unknown;
  readonly idempotencyKey?: string | null;
  readonly path?: 'INLINE' | 'DURABLE' | null;
  /**
   * Runs inside the transaction that claims or records the decision, after the claim (the
   * chat claims its conversation there): a Refusal thrown here rolls the claim back.
   */
  readonly alongside?: (manager: EntityManager, run: RunEntity) => Promise<void>;
}

export interface DecisionReceipt {
  readonly decision: DecisionEntity;
  readonly run: RunEntity;
  readonly path: 'INLINE' | 'DURABLE';
}

interface Claimed {
  readonly run: RunEntity;
  readonly state: SuspendedState;
  readonly decision: DecisionEntity;
  /** The APPROVAL / INPUT step as recorded, published after the commit. */
  readonly step: Step & { readonly sequence: number };
}

/**
 * approveRun, denyRun, submitRunInput: every refusal of docs/decisions.md, in its order,
 * before anything executes; then ONE claim that exactly one of any number of concurrent
 * decisions wins; then the continuation in the background of this instance (INLINE).
 */
@Injectable()
export class DecisionsService {
  private readonly logger = new Logger(DecisionsService.name);

  constructor(
    private readonly runs: RunsRepository,
    private readonly decisions: DecisionsRepository,
    private readonly configurations: ConfigurationsService,
    private readonly vault: StateVault,
    private readonly gate: DeciderGate,
    private readonly executor: RunExecutor,
    private readonly events: RunEventsPublisher,
    private readonly transactions: TransactionRunner,
    private readonly signal: WorkSignal,
    private readonly settler: RunSettler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Decides a waiting run; the receipt as soon as the gates passed (the run is RUNNING). */
  async decide(ctx: RequestContext, command: DecideCommand): Promise<DecisionReceipt> {
    const user = ctx.viewer;
    if (command.kind === 'INPUT') assertJsonSize(command.values, 'values');
    const run = await this.runs.findById(parseUuid(command.runId, 'runId'));
    if (!run) throw notFound('Run not found');
    const access = runAccess(user, run);
    const fingerprint = decisionFingerprint({ ...command, values: command.values ?? null });
    const replay = await this.replayByKey(run, user, command, fingerprint, access.decide);
    if (replay) return replay;
    const configuration = await this.configurations.getById(run.configurationId);
    const lease = { runId: run.id, token: randomUUID(), claimedBy: this.executor.instanceId };
    let claimed: Claimed;
    try {
      await this.earlyRefusals(ctx, run, configuration, command, access);
      const state = this.readableState(run);
      if (command.kind === 'INPUT') this.checkInput(state, command.values);
      // why: an inline request never depends on the workers, so it costs no heartbeat query.
      const live = needsWorkerCount(command.path, this.config.decisionPath)
        ? await this.runs.countLiveWorkers(this.config.workerLivenessSeconds)
        : 0;
      if (choosePath(command.path, this.config.decisionPath, live) === 'DURABLE') {
        return await this.record(user, run, state, command, fingerprint);
      }
      claimed = await this.claim(user, run, command, fingerprint, lease);
    } catch (e) {
      // why: a racer that lost to a decision under its own idempotency key (at the claim, or
      // seeing the claim already done) gets the winner's receipt, not a refusal.
      const winner =
        e instanceof Refusal && e.code === 'ALREADY_RESUMING'
          ? await this.replayByKey(run, user, command, fingerprint, true)
          : null;
      if (winner) return winner;
      throw e;
    }
    await this.afterClaim(ctx, claimed, configuration, command, lease);
    return { decision: claimed.decision, run: claimed.run, path: 'INLINE' };
  }

  /**
   * The durable path: the same checks 1-10, then WAITING_* -> DECISION_RECORDED with the
   * decision (input values included) sealed into the checkpoint and the audit row, in one
   * transaction; a worker carries it out (RecordedDecisions) and re-checks 12-14 there.
   */
  private async record(
    user: AuthUser,
    run: RunEntity,
    state: SuspendedState,
    command: DecideCommand,
    fingerprint: string,
  ): Promise<DecisionReceipt> {
    const waiting = command.kind === 'INPUT' ? 'WAITING_FOR_INPUT' : 'WAITING_FOR_APPROVAL';
    const decisionId = randomUUID();
    const sealed = this.vault.seal(run.id, {
      v: 1,
      kind: 'decided',
      state,
      decision: this.agentDecision(user, command),
      decisionId,
    });
    const receipt = await this.transactions.run(async ({ manager }) => {
      const recorded = await this.runs.recordDecision(run.id, waiting, run.turn, sealed, manager);
      if (!recorded) throw new Refusal('ALREADY_RESUMING', 'Another decision on this run was taken first');
      if (!recorded.turnDigest || !digestsEqual(recorded.turnDigest, command.turnDigest)) {
        throw new Refusal('STALE_TURN', 'This proposal changed since it was shown; reload it', {
          turn: recorded.turn,
        });
      }
      await command.alongside?.(manager, recorded);
      const decision = await this.insertDecision(
        user,
        recorded,
        command,
        fingerprint,
        'DURABLE',
        decisionId,
        manager,
      );
      return { decision, run: recorded, path: 'DURABLE' as const };
    });
    await this.events.inboxChanged(run.id);
    await this.events.progress(run.id, receipt.run.stepCount, 'DECISION_RECORDED', receipt.run.turn);
    await this.signal.notify();
    return receipt;
  }

  /** The decisions taken on a run, by turn (the audit trail; `Run.decisions`). */
  async listForRun(runId: string): Promise<DecisionEntity[]> {
    return this.decisions.listForRun(runId);
  }

  /** The first decision's receipt for a repeated idempotency key; IDEMPOTENCY_KEY_REUSED when it differs. */
  private async replayByKey(
    run: RunEntity,
    user: AuthUser,
    command: DecideCommand,
    fingerprint: string,
    mayDecide: boolean,
  ): Promise<DecisionReceipt | null> {
    if (!command.idempotencyKey || !mayDecide) return null;
    const earlier = await this.decisions.findByKey(run.id, user.id, command.idempotencyKey);
    if (!earlier) return null;
    if (earlier.fingerprint !== fingerprint) {
      throw new Refusal('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used for a different decision');
    }
    const current = (await this.runs.findById(run.id)) ?? run;
    return { decision: earlier, run: current, path: earlier.path as 'INLINE' | 'DURABLE' };
  }

  /** Checks 1-8; check 7 fails the process run (guarded on its waiting state) before refusing. */
  private async earlyRefusals(
    ctx: RequestContext,
    run: RunEntity,
    configuration: ConfigurationView,
    command: DecideCommand,
    access: { detail: boolean; decide: boolean },
  ): Promise<void> {
    const verdict = earlyChecks({
      kind: command.kind,
      callerId: ctx.viewer.id,
      mayRead: access.detail,
      mayDecide: access.decide,
      surface: ctx.surface,
      run: {
        ownerId: run.ownerId,
        status: run.status,
        hasState: run.checkpoint !== null,
        isProcessRun: run.processPin !== null,
        claimedOnCallersTurn:
          (run.status === 'RUNNING' || run.status === 'DECISION_RECORDED') &&
          run.turnDigest !== null &&
          digestsEqual(run.turnDigest, command.turnDigest),
      },
      configuration: {
        deleted: configuration.deletedAt !== null,
        isActive: configuration.isActive,
        requireSecondApprover: configuration.requireSecondApprover,
      },
    });
    if (!verdict) return;
    if (verdict.failRun) {
      await this.settler.settle(
        { runId: run.id, from: [run.status as 'WAITING_FOR_APPROVAL'] },
        {
          kind: 'FAILED',
          reason: 'APPROVAL_DENIED',
          message: 'Stopped: the configuration now requires a second approver',
        },
      );
    }
    throw verdict.refusal;
  }

  /** Check 10: the suspended state decrypts and decodes (the run keeps waiting otherwise). */
  private readableState(run: RunEntity): SuspendedState {
    try {
      const checkpoint = this.vault.open(run.id, run.checkpoint);
      if (checkpoint.kind !== 'state' || !checkpoint.state.pending) {
        throw new StateUnreadableError('The stored state holds no pending turn');
      }
      return checkpoint.state;
    } catch (e) {
      if (e instanceof StateUnreadableError) {
        throw new Refusal('STATE_UNREADABLE', "The run's suspended state cannot be read; it keeps waiting");
      }
      throw e;
    }
  }

  /** Check 9: the values against the pending schema, with the failing paths. */
  private checkInput(state: SuspendedState, values: unknown): void {
    try {
      validateInput(state, values);
    } catch (e) {
      if (e instanceof InvalidInputError) {
        throw new Refusal('INVALID_INPUT', e.message, { paths: e.paths, problems: e.problems });
      }
      throw e;
    }
  }

  /**
   * Checks 11-14 in one transaction: the conditional UPDATE claims the run (row-locked until
   * commit); the digest, the decider gate and the audit record are checked on the state read
   * back after the claim, and any refusal rolls the claim back, which is the release.
   */
  private async claim(
    user: AuthUser,
    run: RunEntity,
    command: DecideCommand,
    fingerprint: string,
    lease: { runId: string; token: string; claimedBy: string },
  ): Promise<Claimed> {
    const waiting = command.kind === 'INPUT' ? 'WAITING_FOR_INPUT' : 'WAITING_FOR_APPROVAL';
    return this.transactions.run(async ({ manager }) => {
      const claimed = await this.runs.claimForDecision(
        run.id,
        waiting,
        run.turn,
        lease,
        this.config.runLeaseSeconds,
        manager,
      );
      if (!claimed) throw new Refusal('ALREADY_RESUMING', 'Another decision on this run was taken first');
      // why: compare against the claimed row, not the one read before: a second decider may
      // have moved the run on to another turn in between.
      if (!claimed.turnDigest || !digestsEqual(claimed.turnDigest, command.turnDigest)) {
        throw new Refusal('STALE_TURN', 'This proposal changed since it was shown; reload it', {
          turn: claimed.turn,
        });
      }
      const state = this.readableState(claimed);
      // why: the gate is for what the decider makes happen; a denial executes nothing (the
      // model is told who declined), so an owner or approver without edit rights may still deny.
      if (command.kind !== 'DENY' && !(await this.gate.permits(user, state.pending!, manager))) {
        throw command.kind === 'INPUT'
          ? new Refusal('SUBMITTER_NOT_PERMITTED', 'You may not run every call this input would continue')
          : new Refusal('APPROVER_NOT_PERMITTED', 'You may not perform every write this turn proposes');
      }
      await command.alongside?.(manager, claimed);
      const { decision, step } = await this.audit(user, claimed, command, fingerprint, state, lease, manager);
      // why: the decision is sealed into the checkpoint with the claim, so a continuation cut
      // off before its first write (a crash, a kill) is requeued and carried out, not lost.
      const decided = this.vault.seal(run.id, {
        v: 1,
        kind: 'decided',
        state,
        decision: this.agentDecision(user, command),
        decisionId: decision.id,
      });
      if (!(await this.runs.storeCheckpoint(lease, decided, manager))) {
        throw new Refusal('ALREADY_RESUMING', 'Another decision on this run was taken first');
      }
      return { run: (await this.runs.findById(run.id, manager)) ?? claimed, state, decision, step };
    });
  }

  /** Check 14: the decision record and its APPROVAL / INPUT step, or NOT_AUDITABLE. */
  private async audit(
    user: AuthUser,
    run: RunEntity,
    command: DecideCommand,
    fingerprint: string,
    state: SuspendedState,
    lease: { runId: string; token: string; claimedBy: string },
    manager: Parameters<DecisionsRepository['insert']>[1],
  ): Promise<{ decision: DecisionEntity; step: Step & { sequence: number } }> {
    try {
      const decision = await this.decisions.insert(
        this.decisionRow(user, run, command, fingerprint, 'INLINE', randomUUID()),
        manager,
      );
      const step = decisionStep(this.agentDecision(user, command), state, user.id);
      const sequence = await this.runs.appendStep(lease, step, this.config.runLeaseSeconds, manager);
      if (sequence === null) throw new Error('the decision step could not be stored');
      return { decision, step: { ...step, sequence } };
    } catch (e) {
      this.logger.error({ runId: run.id, err: e }, 'decision could not be audited');
      throw new Refusal('NOT_AUDITABLE', 'The decision could not be recorded, so nothing was done');
    }
  }

  /** The audit row of the durable path (its step is recorded when a worker carries it out). */
  private async insertDecision(
    user: AuthUser,
    run: RunEntity,
    command: DecideCommand,
    fingerprint: string,
    path: 'INLINE' | 'DURABLE',
    id: string,
    manager: Parameters<DecisionsRepository['insert']>[1],
  ): Promise<DecisionEntity> {
    try {
      return await this.decisions.insert(
        this.decisionRow(user, run, command, fingerprint, path, id),
        manager,
      );
    } catch (e) {
      this.logger.error({ runId: run.id, err: e }, 'decision could not be audited');
      throw new Refusal('NOT_AUDITABLE', 'The decision could not be recorded, so nothing was done');
    }
  }

  private decisionRow(
    user: AuthUser,
    run: RunEntity,
    command: DecideCommand,
    fingerprint: string,
    path: 'INLINE' | 'DURABLE',
    id: string,
  ) {
    return {
      id,
      runId: run.id,
      turn: run.turn,
      kind: command.kind,
      decidedBy: user.id,
      denialReason: command.kind === 'DENY' ? (command.reason ?? null) : null,
      turnDigest: run.turnDigest!,
      path,
      idempotencyKey: command.idempotencyKey ?? null,
      fingerprint,
    };
  }

  private agentDecision(user: AuthUser, command: DecideCommand): AgentDecision {
    const name = user.displayName || user.username;
    if (command.kind === 'APPROVE') return { kind: 'approve', decidedBy: name };
    if (command.kind === 'DENY') return { kind: 'deny', decidedBy: name, reason: command.reason ?? null };
    return { kind: 'input', submittedBy: name, values: command.values };
  }

  /** Publishes the claim and starts the continuation in the background. */
  private async afterClaim(
    ctx: RequestContext,
    claimed: Claimed,
    configuration: ConfigurationView,
    command: DecideCommand,
    lease: { runId: string; token: string; claimedBy: string },
  ): Promise<void> {
    await this.events.inboxChanged(claimed.run.id);
    const { step } = claimed;
    await this.events.step(
      claimed.run.id,
      { ...step, at: new Date().toISOString() },
      'RUNNING',
      claimed.run.turn,
    );
    const decisionId = claimed.decision.id;
    this.executor.launch({
      lease,
      run: claimed.run,
      configuration,
      checkpoint: {
        v: 1,
        kind: 'decided',
        state: claimed.state,
        decision: this.agentDecision(ctx.viewer, command),
        decisionId,
      },
    });
  }
}
