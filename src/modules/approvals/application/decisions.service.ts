import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  digestsEqual,
  InvalidInputError,
  validateInput,
  type Decision as AgentDecision,
  type SuspendedState,
} from '../../../agent';
import { parseUuid } from '../../../common/ids';
import { notFound, Refusal } from '../../../common/refusal';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import { assertJsonSize, ConfigurationsService, type ConfigurationSettings } from '../../configurations';
import type { PageAccess } from '../../content';
import {
  choosePath,
  needsWorkerCount,
  RunDecisions,
  RunSettler,
  RunsService,
  runAccess,
  staleTurn,
  type ClaimedDecision,
  type DecisionOnRun,
  type RunView,
} from '../../runs';
import {
  DecisionFacts,
  DecisionKind,
  earlyChecks,
  EarlyVerdict,
  RunDecisionFacts,
  runChecks,
} from '../core/decision-checks';
import type { DecisionView } from '../core/decision-view';
import { decisionFingerprint } from '../core/fingerprint';
import { DeciderGate } from './decider-gate';
import { DecisionReads, type DecisionRead } from './decision-reads';
import { PROCESS_STOPPED_MESSAGE } from './recorded-decisions';
import { DecisionRecords, type DecisionEntry } from './decision-records';
import { ApprovalQuorum } from './approval-quorum';

export interface DecideCommand {
  readonly kind: DecisionKind;
  readonly runId: string;
  readonly turnDigest: string;
  readonly reason?: 'VARIANT' | 'SKIP' | null;
  readonly values?: unknown;
  readonly idempotencyKey?: string | null;
  readonly path?: 'INLINE' | 'DURABLE' | null;
  /**
   * Runs inside a transaction with the claim, after it (the chat claims its conversation there):
   * a Refusal thrown here rolls the claim back.
   */
  readonly alongside?: () => Promise<void>;
}

export interface DecisionReceipt {
  readonly decision: DecisionView;
  readonly run: RunView;
  readonly path: 'INLINE' | 'DURABLE';
}

/** A claim taken: the receipt, and (inline) what the continuation starts from after the commit. */
interface Taken {
  readonly receipt: DecisionReceipt;
  readonly claimed: ClaimedDecision | null;
}

/**
 * approveRun, denyRun, submitRunInput: every check of docs/decisions.md in its order, before
 * anything executes; then ONE statement in which the runs module claims the run (exactly one of
 * any number of concurrent decisions wins) with this module's decision record riding in it (in
 * a transaction only where the chat claims its conversation with it, or a listener writes);
 * then the continuation (inline) or a worker (durable). The run is read once, with its
 * configuration and the page it is about in the same statement, and its state opened once per
 * decision.
 */
@Injectable()
export class DecisionsService {
  constructor(
    private readonly runs: RunsService,
    private readonly reads: DecisionReads,
    private readonly runDecisions: RunDecisions,
    private readonly settler: RunSettler,
    private readonly records: DecisionRecords,
    private readonly configurations: ConfigurationsService,
    private readonly gate: DeciderGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly quorum: ApprovalQuorum,
  ) {}

  /** Decides a waiting run; the receipt as soon as the claim committed. */
  async decide(ctx: RequestContext, command: DecideCommand): Promise<DecisionReceipt> {
    const user = ctx.viewer;
    if (command.kind === 'INPUT') assertJsonSize(command.values, 'values');
    const read = await this.reads.readFor(ctx, parseUuid(command.runId, 'runId'));
    if (!read) throw notFound('Run not found');
    const { run } = read;
    const access = runAccess(user, run);
    const fingerprint = decisionFingerprint({ ...command, values: command.values ?? null });
    const replay = await this.replayByKey(run, user, command, fingerprint, access.decide);
    if (replay) return replay;
    try {
      const facts = await this.runFacts(ctx, run, command, access);
      // why: checks 1-4 need nothing of the configuration; a decision they refuse reads no more.
      await this.refuse(run, runChecks(facts));
      // why: from order 8 on, decisions on this run take turns in this process: the losers of a
      // storm wait for the winner and are refused without reading anything more.
      const decided = await this.runDecisions.oneAtATime(
        { run, turnDigest: command.turnDigest },
        () => this.takeTurn(user, read, command, facts, fingerprint),
        (result) => 'completed' in result,
      );
      if ('vote' in decided) return { decision: decided.vote, run, path: decided.path };
      const { receipt, claimed } = decided.completed;
      // why: after the commit of the transaction around the claim (the vote's, where there is one).
      if (claimed) this.runDecisions.continueClaimed(claimed, decided.configuration, read.page?.page.id);
      return receipt;
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
  }

  /**
   * Checks 5-10 and the taking of the turn (a vote, the claim or the record), one decision per
   * run at a time in this process (`RunDecisions.oneAtATime`).
   */
  private async takeTurn(
    user: AuthUser,
    read: DecisionRead,
    command: DecideCommand,
    facts: RunDecisionFacts,
    fingerprint: string,
  ): Promise<
    | { vote: DecisionView; path: 'INLINE' | 'DURABLE' }
    | { completed: Taken; configuration: ConfigurationSettings }
  > {
    const { run } = read;
    const opened = this.openOnce(run);
    const inline = !needsWorkerCount(command.path, this.config.decisionPath);
    // why: the configuration and the page the run is about (its subject page, or the page a
    // run without one defaults to) came with the run. Read side by side where needed: whether a
    // worker is live, where the path depends on it (an inline request costs no heartbeat query);
    // and, where the claim is inline for sure, the decider gate's pages other than that one (a
    // call on another page), so the gate (order 15, right before the claim) costs no round trip
    // of its own. A denial skips the gate; a refusal before the claim leaves those reads unused.
    const [configuration, live, gatePages] = await Promise.all([
      read.configuration ?? this.configurations.getById(run.configurationId),
      inline ? 0 : this.runDecisions.liveWorkers(),
      inline && 'state' in opened && command.kind !== 'DENY'
        ? this.gate.pagesFor([opened.state.pending!], read.page)
        : undefined,
    ]);
    await this.refuse(run, earlyChecks({ ...facts, configuration: configurationFacts(configuration) }));
    if (!('state' in opened)) throw opened.unreadable;
    const state = opened.state;
    if (command.kind === 'INPUT') checkInput(state, command.values);
    if (!run.turnDigest || !digestsEqual(run.turnDigest, command.turnDigest)) throw staleTurn(run.turn);
    const on: DecisionOnRun = {
      run,
      state,
      turnDigest: command.turnDigest,
      decision: agentDecision(user, command),
      deciderId: user.id,
      decisionId: randomUUID(),
    };
    const path = choosePath(command.path, this.config.decisionPath, live);
    const entry = entryOf(on, command, fingerprint, path);
    const take = () =>
      path === 'DURABLE'
        ? this.recordDurable(user, on, command, entry)
        : this.claimInline(user, on, command, entry, gatePages);
    const required = command.kind === 'APPROVE' ? configuration.requiredApprovals : 1;
    if (required <= 1) return { completed: await take(), configuration };
    const taken = await this.quorum.vote(user, on, required, entry, take);
    return 'vote' in taken ? { vote: taken.vote, path } : { completed: taken.completed, configuration };
  }

  /**
   * Inline: the decider gate (order 15), then the claim (order 16) carrying the decision's
   * step, the decided checkpoint and the record (order 17) in one statement, with the chat's
   * claim (`alongside`) in a transaction around it where there is one. The caller starts the
   * continuation once it committed.
   */
  private async claimInline(
    user: AuthUser,
    on: DecisionOnRun,
    command: DecideCommand,
    entry: DecisionEntry,
    gatePages: ReadonlyMap<number, PageAccess> | undefined,
  ): Promise<Taken> {
    // why: the gate is for what the decider makes happen; a denial executes nothing (the
    // model is told who declined), so an owner or approver without edit rights may still deny.
    const pending = on.state.pending!;
    const permitted =
      command.kind === 'DENY' ||
      DeciderGate.permitsWith(user, pending, gatePages ?? (await this.gate.pagesFor([pending])));
    if (!permitted) {
      throw command.kind === 'INPUT'
        ? new Refusal('SUBMITTER_NOT_PERMITTED', 'You may not run every call this input would continue')
        : new Refusal('APPROVER_NOT_PERMITTED', 'You may not perform every write this turn proposes');
    }
    const { take, recorded } = await this.records.take(user, on.run, entry, command.alongside);
    const claimed = await this.runDecisions.claim(on, take);
    return { receipt: { decision: recorded(claimed.at), run: claimed.run, path: 'INLINE' }, claimed };
  }

  /**
   * The durable path: the same checks, then WAITING_* -> DECISION_RECORDED with the decision
   * (input values included) sealed into the checkpoint, and the record, in one statement (with
   * `alongside` as inline); a worker carries it out (RecordedDecisions) and runs the decider gate
   * there.
   */
  private async recordDurable(
    user: AuthUser,
    on: DecisionOnRun,
    command: DecideCommand,
    entry: DecisionEntry,
  ): Promise<Taken> {
    const { take, recorded } = await this.records.take(user, on.run, entry, command.alongside);
    const { run, at } = await this.runDecisions.record(on, take);
    return { receipt: { decision: recorded(at), run, path: 'DURABLE' }, claimed: null };
  }

  /** The run's suspended state, opened once; its refusal (order 12) kept for its turn. */
  private openOnce(run: RunView): { state: SuspendedState } | { unreadable: unknown } {
    try {
      return { state: this.runDecisions.openSuspended(run) };
    } catch (e) {
      return { unreadable: e };
    }
  }

  /** The first decision's receipt for a repeated idempotency key; IDEMPOTENCY_KEY_REUSED when it differs. */
  private async replayByKey(
    run: RunView,
    user: AuthUser,
    command: DecideCommand,
    fingerprint: string,
    mayDecide: boolean,
  ): Promise<DecisionReceipt | null> {
    if (!command.idempotencyKey || !mayDecide) return null;
    const earlier = await this.records.earlierUnderKey(run.id, user.id, command.idempotencyKey, fingerprint);
    if (!earlier) return null;
    const current = (await this.runs.findRunById(run.id)) ?? run;
    return { decision: earlier, run: current, path: earlier.path as 'INLINE' | 'DURABLE' };
  }

  /** What checks 1-8 know of the caller and the run (the deadline read from the database). */
  private async runFacts(
    ctx: RequestContext,
    run: RunView,
    command: DecideCommand,
    access: { detail: boolean; decide: boolean },
  ): Promise<RunDecisionFacts> {
    return {
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
        expired: run.status === 'WAITING_FOR_APPROVAL' && (await this.runDecisions.deadlinePassed(run)),
      },
    };
  }

  /** Throws an early check's refusal; check 7 fails the process run (guarded on its waiting state) first. */
  private async refuse(run: RunView, verdict: EarlyVerdict): Promise<void> {
    if (!verdict) return;
    if (verdict.failRun) {
      await this.settler.settle(
        { runId: run.id, from: [run.status as 'WAITING_FOR_APPROVAL'] },
        {
          kind: 'FAILED',
          reason: 'APPROVAL_DENIED',
          message: PROCESS_STOPPED_MESSAGE,
        },
      );
    }
    throw verdict.refusal;
  }
}

function configurationFacts(configuration: ConfigurationSettings): DecisionFacts['configuration'] {
  return {
    deleted: configuration.deletedAt !== null,
    isActive: configuration.isActive,
    requireSecondApprover: configuration.requireSecondApprover,
  };
}

/** Check 9: the values against the pending schema, with the failing paths. */
function checkInput(state: SuspendedState, values: unknown): void {
  try {
    validateInput(state, values);
  } catch (e) {
    if (e instanceof InvalidInputError) {
      throw new Refusal('INVALID_INPUT', e.message, { paths: e.paths, problems: e.problems });
    }
    throw e;
  }
}

function entryOf(
  on: DecisionOnRun,
  command: DecideCommand,
  fingerprint: string,
  path: 'INLINE' | 'DURABLE',
): DecisionEntry {
  return {
    id: on.decisionId,
    kind: command.kind,
    reason: command.reason ?? null,
    idempotencyKey: command.idempotencyKey ?? null,
    fingerprint,
    path,
  };
}

function agentDecision(user: AuthUser, command: DecideCommand): AgentDecision {
  const name = user.displayName || user.username;
  if (command.kind === 'APPROVE') return { kind: 'approve', decidedBy: name };
  if (command.kind === 'DENY') return { kind: 'deny', decidedBy: name, reason: command.reason ?? null };
  return { kind: 'input', submittedBy: name, values: command.values };
}
