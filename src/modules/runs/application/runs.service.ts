import { Inject, Injectable, Logger } from '@nestjs/common';
import { RunReadsRepository, type RunJoins, type RunWithJoined } from '../persistence/run-reads.repository';
import { randomUUID } from 'node:crypto';
import { StateUnreadableError, type PendingTurn } from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId, parseUuid } from '../../../common/ids';
import { decodeCursor, encodeCursor } from '../../../common/cursor';
import { badInput, forbidden, notFound, Refusal } from '../../../common/refusal';
import { clampMaxIterations, ConfigurationsService } from '../../configurations';
import { resolveProcess } from '../core/process-resolution';
import { languageNotAccessible, mayShowPage, PageAccessLookup, PagesService } from '../../content';
import { callsForViewer, pendingPageIds } from '../core/pending-visibility';
import { mayKnowRun, runAccess } from '../core/run-access.policy';
import { CANCELLABLE_STATUSES, isWaiting, WAITING_STATUSES } from '../core/run-status';
import { RunsRepository } from '../persistence/runs.repository';
import type { RunView } from '../core/run-view';
import { RunExecutor } from './run-executor';
import { RunEventsPublisher } from './run-events';
import { WorkSignal } from './work-signal';
import { choosePath, needsWorkerCount } from '../core/path-choice';
import { StateVault } from './state-vault';
import { RunSettler } from './run-settler';
import { TransactionRunner, type Tx } from '../../../platform/database/transaction-runner';
import { RunAdmission } from './run-admission';
import type { QueuedTurn, StartRunCommand, TurnCommand } from './run-commands';
import { QueuedRuns } from './queued-runs';
import { WorkerPresence } from './worker-presence';
import { pageSize } from '../../../common/page-size';

/** The largest page of a run's steps (docs/pagination.md). */
const MAX_STEP_PAGE = 500;

export type { QueuedTurn, StartRunCommand, TurnCommand } from './run-commands';

/** The pending turn of a waiting run as a viewer may see it. */
export interface PendingView extends PendingTurn {
  readonly runId: string;
  readonly waitingSince: Date;
  /** The decision deadline (approval waits whose configuration sets one). */
  readonly expiresAt: Date | null;
  /** Distinct approvals the turn needs: the configuration's quorum for approvals, else 1. */
  readonly approvalsRequired: number;
  /** False: the arguments are withheld (the viewer may decide but not read the run). */
  readonly detailVisible: boolean;
}

/**
 * Runs as use cases: start, read, list, cancel. Access: detail (owner, admins) and decide
 * (plus AGENT_APPROVE holders) per run; a caller with neither gets NOT_FOUND.
 */
@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);

  constructor(
    private readonly repository: RunsRepository,
    private readonly reads: RunReadsRepository,
    private readonly executor: RunExecutor,
    private readonly vault: StateVault,
    private readonly events: RunEventsPublisher,
    private readonly configurations: ConfigurationsService,
    private readonly pages: PagesService,
    private readonly pageLookup: PageAccessLookup,
    private readonly signal: WorkSignal,
    private readonly settler: RunSettler,
    private readonly admission: RunAdmission,
    private readonly queued: QueuedRuns,
    private readonly presence: WorkerPresence,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Starts a run of a configuration the viewer may use (admins: any) and returns it as stored:
   * QUEUED for a worker (durable path) or RUNNING here (inline path); the run goes on in the
   * background. Refusals, all before anything is written:
   * BAD_USER_INPUT (malformed ids), NOT_FOUND (configuration the viewer may not use, subject
   * page the viewer may not show), LANGUAGE_NOT_ACCESSIBLE (`checkSubject`), CONFIGURATION_INACTIVE,
   * then the per-user caps (RunAdmission):
   * RATE_LIMITED, TOO_MANY_WAITING_RUNS.
   */
  async startRun(ctx: RequestContext, command: StartRunCommand): Promise<RunView> {
    const user = ctx.viewer;
    // why side by side: the count has no refusal of its own, and one round trip less comes
    // before the start's transaction.
    const [configuration, live] = await Promise.all([
      this.configurations.findForUse(ctx, parseSerialId(command.configurationId, 'configurationId')),
      needsWorkerCount(null, this.config.decisionPath) ? this.presence.liveWorkers() : 0,
    ]);
    if (!configuration.isActive) {
      throw new Refusal('CONFIGURATION_INACTIVE', 'The configuration is inactive');
    }
    const subjectPageId = await this.checkSubject(user, command);
    const id = randomUUID();
    const maxIterations = clampMaxIterations(
      command.maxIterations ?? configuration.maxIterations,
      this.config.maxIterationsCeiling,
    );
    const checkpoint = { v: 1, kind: 'start', prompt: command.prompt } as const;
    const newRun = {
      id,
      configurationId: configuration.id,
      ownerId: user.id,
      workspaceId: command.workspaceId ?? 0,
      subjectPageId,
      subjectLanguageId: command.subjectLanguageId ?? null,
      maxIterations,
      checkpoint: this.vault.seal(id, checkpoint),
    };
    const durable = choosePath(null, this.config.decisionPath, live) === 'DURABLE';
    const lease = { runId: id, token: randomUUID(), claimedBy: this.executor.instanceId };
    const run = await this.transactions.run(async () => {
      // why: the caps and the insert share one transaction (and the owner's row lock), so a
      // refused start writes nothing and concurrent starts cannot pass the cap together.
      await this.admission.admit(user.id);
      // why: with a live worker the run waits QUEUED for it (FOR UPDATE SKIP LOCKED), so no
      // API instance carries a long run; the signal wakes a worker at once.
      if (durable) return this.repository.insertQueued(newRun);
      return this.repository.insertRunning(newRun, lease, this.config.runLeaseSeconds);
    });
    if (durable) await this.signal.notify();
    else this.executor.launch({ lease, run, configuration, checkpoint });
    return run;
  }

  /**
   * The start's subject: the page the run is about (NOT_FOUND where the user may not show it)
   * and, where a language is given, that language on the page the run will work on, the given
   * one or the default page (LANGUAGE_NOT_ACCESSIBLE, the check of a conversation's view: one of
   * the page's languages, granted by one of the user's groups). The page's id, or null.
   */
  private async checkSubject(user: AuthUser, command: StartRunCommand): Promise<number | null> {
    const pageId = command.subjectPageId ? parseSerialId(command.subjectPageId, 'subjectPageId') : null;
    const page = pageId === null ? null : await this.pages.getPageForUser(user, pageId);
    if (pageId !== null && !page) throw notFound('Page not found');
    const languageId = command.subjectLanguageId;
    if (languageId == null) return pageId;
    if (page) {
      await this.pages.assertLanguageAccess(user, page, languageId);
      return pageId;
    }
    const defaultId = await this.pages.defaultPageId();
    if (defaultId === null) return pageId;
    const defaultPage = await this.pages.getPageForUser(user, defaultId);
    if (!defaultPage) throw languageNotAccessible(defaultId, languageId);
    await this.pages.assertLanguageAccess(user, defaultPage, languageId);
    return pageId;
  }

  /**
   * Queues a chat turn inside the caller's transaction (the conversation's claim and messages
   * commit with it): derives the process from the invocation or the predecessor (a drop is
   * recorded on the run and replayed by the runtime as a DROPPED step). The per-user caps on
   * runs apply (RATE_LIMITED, TOO_MANY_WAITING_RUNS), refusing inside the caller's transaction,
   * which then rolls back. Call `dispatchTurn` after the commit.
   */
  async enqueueTurn(command: TurnCommand): Promise<QueuedTurn> {
    return this.transactions.run(() => this.queueTurn(command));
  }

  private async queueTurn(command: TurnCommand): Promise<QueuedTurn> {
    await this.admission.admit(command.owner.id);
    const predecessor = command.predecessorRunId ? await this.reads.findById(command.predecessorRunId) : null;
    const { pin, dropped, guidance } = resolveProcess({
      invocation: command.invocation,
      predecessorRunId: command.predecessorRunId,
      predecessor,
      callerId: command.owner.id,
      callerIsAdmin: command.owner.isAdmin,
      configurationId: command.configuration.id,
      catalogueVersions: command.catalogueVersions,
      versions: command.versions,
    });
    const id = randomUUID();
    const checkpoint = {
      v: 1,
      kind: 'start',
      prompt: command.prompt,
      messages: command.messages,
      skills: command.skills,
      contextNote: command.contextNote,
      ...(pin ? { processPin: pin } : {}),
      ...(guidance ? { processGuidance: guidance } : {}),
      ...(dropped ? { droppedProcess: dropped } : {}),
    } as const;
    await this.repository.insertQueued({
      id,
      configurationId: command.configuration.id,
      ownerId: command.owner.id,
      workspaceId: 0,
      subjectPageId: command.subjectPageId,
      subjectLanguageId: command.subjectLanguageId,
      maxIterations: clampMaxIterations(
        command.configuration.maxIterations,
        this.config.maxIterationsCeiling,
      ),
      checkpoint: this.vault.seal(id, checkpoint),
      predecessorRunId: command.predecessorRunId,
      skillInvocation: command.invocation,
      processPin: pin,
      droppedProcess: dropped,
      // why: the one way a run becomes a conversation's; every other run's settle skips the lookup.
      chatTurn: true,
    });
    return { runId: id, processPin: pin, droppedProcess: dropped };
  }

  /**
   * Starts a queued chat turn after the commit that queued it, by the rule decisions follow
   * (choosePath): with a live worker (and DECISION_PATH not `inline`) the worker takes it
   * (QUEUED); otherwise this instance claims and carries it (STARTED) where it has a free slot
   * (WORKER_CONCURRENCY), else it waits for capacity (WAITING) until a worker or this
   * instance's reconcile picks it up.
   */
  async dispatchTurn(runId: string): Promise<'QUEUED' | 'STARTED' | 'WAITING'> {
    const live = needsWorkerCount(null, this.config.decisionPath) ? await this.presence.liveWorkers() : 0;
    if (choosePath(null, this.config.decisionPath, live) === 'DURABLE') {
      await this.signal.notify();
      return 'QUEUED';
    }
    if (this.executor.executingCount() >= this.config.workerConcurrency) {
      await this.signal.notify();
      return 'WAITING';
    }
    try {
      const claim = await this.queued.claimOne(runId, this.executor.instanceId);
      // why: someone else (a worker that just came up, a reconcile) took it: it is carried.
      if (!claim) return 'QUEUED';
      await this.queued.begin(claim, 'now');
      return 'STARTED';
    } catch (err) {
      // why: the turn is recorded; a claim nobody carries is requeued by the reaper, an
      // unclaimed one is picked up by a worker or the reconcile. The sender is not refused.
      this.logger.error({ runId, err }, 'could not start a chat turn here');
      return 'QUEUED';
    }
  }

  /**
   * Cancels a waiting run inside the caller's transaction, guarded on the waiting state (the
   * chat withdrawing a proposal); announced after that transaction commits. False when the
   * run was no longer waiting.
   */
  async withdrawWaiting(tx: Tx, runId: string): Promise<boolean> {
    return (
      (await this.settler.settleIn(tx, { runId, from: WAITING_STATUSES }, { kind: 'CANCELLED' })) !== null
    );
  }

  /** A run by id, no access check (the caller has done its own). */
  async findRunById(id: string): Promise<RunView | null> {
    return this.reads.findById(id);
  }

  /**
   * Runs by id, each with rows of other modules read in the same statement (a decision's run,
   * its configuration and the page it is about: one round trip for any number of decisions),
   * no access check; unknown ids are absent.
   */
  async findRunsWith<C, P>(
    ids: readonly string[],
    joins: RunJoins<C, P>,
  ): Promise<Array<RunWithJoined<C, P>>> {
    return this.reads.findByIdsWith(ids, joins);
  }

  /** Runs by id, no access check. */
  async findRunsByIds(ids: readonly string[]): Promise<RunView[]> {
    return this.reads.findByIds(ids);
  }

  /**
   * The run where the viewer may read or decide it; null otherwise (no leak). `field` names the
   * argument a malformed id is refused on (BAD_USER_INPUT).
   */
  async findRun(ctx: RequestContext, id: string, field = 'id'): Promise<RunView | null> {
    const run = await this.reads.findById(parseUuid(id, field));
    return run && mayKnowRun(ctx.viewer, run) ? run : null;
  }

  /**
   * Cancels a run from QUEUED, RUNNING or WAITING_*: NOT_FOUND where the viewer may not know
   * it, FORBIDDEN without detail access, RUN_NOT_WAITING where it already stopped.
   */
  async cancelRun(ctx: RequestContext, id: string): Promise<RunView> {
    const run = await this.findRun(ctx, id, 'runId');
    if (!run) throw notFound('Run not found');
    if (!runAccess(ctx.viewer, run).detail) throw forbidden('Only the run owner or an admin may cancel it');
    if (!(await this.settler.settle({ runId: run.id, from: CANCELLABLE_STATUSES }, { kind: 'CANCELLED' }))) {
      throw new Refusal('RUN_NOT_WAITING', 'The run has already stopped');
    }
    this.executor.interrupt(run.id);
    return this.requireRow(run.id);
  }

  /** Steps need detail access (FORBIDDEN otherwise). */
  async steps(
    ctx: RequestContext,
    run: RunView,
    afterSequence: number,
    first: number,
    after: string | null = null,
  ) {
    this.requireDetail(ctx, run);
    const limit = pageSize(first, MAX_STEP_PAGE);
    const from = after ? stepCursorSequence(run.id, after) : Math.max(afterSequence, 0);
    const rows = await this.reads.listSteps(run.id, from, limit + 1);
    const nodes = rows.slice(0, limit);
    return {
      nodes,
      cursors: nodes.map((step) => encodeCursor(STEPS, [run.id, step.sequence])),
      hasMore: rows.length > limit,
    };
  }

  /** The answer, where kept; detail access only. */
  answer(ctx: RequestContext, run: RunView): string | null {
    this.requireDetail(ctx, run);
    return run.answer;
  }

  /**
   * The pending turn of a waiting run as the viewer may see it (docs/security.md "What
   * deciders see"): arguments only with detail access; a call on a page the viewer may not
   * show has its arguments and preview withheld. The pages of the runs one request resolves
   * in the same tick are looked up together.
   */
  async pending(ctx: RequestContext, run: RunView): Promise<PendingView | null> {
    const pending = this.pendingTurn(run);
    if (!pending) return null;
    const viewer = ctx.viewer;
    const pages = await this.pageLookup.load(ctx, pendingPageIds(pending.calls));
    const showablePageIds = new Set(
      [...pages.values()].filter((a) => mayShowPage(viewer, a.page)).map((a) => a.page.id),
    );
    const detailVisible = runAccess(viewer, run).detail;
    const approval = pending.kind === 'APPROVAL';
    const approvalsRequired = approval
      ? (await this.configurations.getById(run.configurationId)).requiredApprovals
      : 1;
    return {
      ...pending,
      runId: run.id,
      calls: callsForViewer(pending.calls, { detail: detailVisible, showablePageIds }),
      waitingSince: run.waitingSince ?? run.updatedAt,
      expiresAt: approval ? run.expiresAt : null,
      approvalsRequired,
      detailVisible,
    };
  }

  /**
   * The pending turn of a waiting run as stored, arguments included; null where the run does
   * not wait or its state cannot be opened. No access check: for policies that judge the
   * calls themselves (the inbox's decider gate), never for showing.
   */
  pendingTurn(run: RunView): PendingTurn | null {
    if (!isWaiting(run.status) || !run.checkpoint) return null;
    let checkpoint;
    try {
      checkpoint = this.vault.open(run.id, run.checkpoint);
    } catch (e) {
      if (e instanceof StateUnreadableError) return null;
      throw e;
    }
    return checkpoint.kind === 'state' ? (checkpoint.state.pending ?? null) : null;
  }

  private requireDetail(ctx: RequestContext, run: RunView): void {
    if (!runAccess(ctx.viewer, run).detail)
      throw forbidden('Only the run owner or an admin may read its detail');
  }

  private async requireRow(id: string): Promise<RunView> {
    const run = await this.reads.findById(id);
    if (!run) throw new Error(`run ${id} vanished`);
    return run;
  }
}

const STEPS = 'steps';

/** The sequence a steps cursor continues after; a cursor of another run's steps is refused. */
function stepCursorSequence(runId: string, cursor: string): number {
  const [cursorRun, sequence] = decodeCursor(STEPS, cursor, ['string', 'number']);
  if (cursorRun !== runId) throw badInput('after is a cursor of another run', { field: 'after' });
  return Math.max(Number(sequence), 0);
}
