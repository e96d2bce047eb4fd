import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { hostname } from 'node:os';
import {
  createProvider,
  LeaseLostError,
  resumeAgent,
  runAgent,
  type AgentPorts,
  type RunContext,
  type RunOutcome,
  type Step,
  type StepReceipt,
  type TokenUsage,
  type ToolRegistry,
} from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { PrincipalsService } from '../../auth';
import { PagesService } from '../../content';
import { RunsRepository } from '../persistence/runs.repository';
import { AGENT_TOOLS } from './agent-tools';
import { OwnerContentPort } from './content-port.adapter';
import { RunEventsPublisher } from './run-events';
import { Metrics } from '../../../platform/metrics/metrics';
import { RunSettler } from './run-settler';
import { segmentKind, settlementOf, withContext, type Segment } from './segment';
import { KeptSteps, storingFirst } from './kept-steps';
import { EffectWrites } from './effect-writes';
import { AnswerStream, LiveAnswers } from './live-answers';
import { StateVault } from './state-vault';
import { RunBudget } from './run-budget';
import { SegmentSlots } from './segment-slots';

export type { Segment } from './segment';

interface Live {
  /** The segment's steps: stored, and kept to be stored with the next write (KeptSteps). */
  steps: KeptSteps;
  turn: number;
  lastProgressAt: number;
  /** The segment's write calls: their effects, fence and unit (EffectWrites). */
  writes: EffectWrites;
}

/**
 * Executes run segments in the background of this process under their lease: builds the
 * runtime's ports (fenced step writes, pending effects, the owner's content access, events),
 * runs or resumes the agent, and writes the outcome with one conditional UPDATE. The run
 * goes on whether or not anyone listens; a process that lost its lease commits nothing.
 */
@Injectable()
export class RunExecutor implements OnApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly inFlight = new Map<string, { done: Promise<void>; abort: AbortController }>();
  private slotsOfProcess: SegmentSlots | null = null;
  readonly instanceId = `api:${hostname()}:${process.pid}`;

  constructor(
    private readonly repository: RunsRepository,
    private readonly vault: StateVault,
    private readonly events: RunEventsPublisher,
    private readonly pages: PagesService,
    private readonly principals: PrincipalsService,
    private readonly settler: RunSettler,
    private readonly transactions: TransactionRunner,
    @Inject(AGENT_TOOLS) private readonly tools: ToolRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly answers: LiveAnswers,
    private readonly budget: RunBudget,
  ) {}

  /**
   * Starts a segment in the background; never throws, settles the run however it ends. `now`
   * executes it at once; `when-free` (the worker's claims) once one of the process's
   * WORKER_CONCURRENCY slots is free (SegmentSlots).
   */
  launch(segment: Segment, start: 'now' | 'when-free' = 'now'): void {
    const abort = new AbortController();
    const entry = { done: Promise.resolve(), abort };
    // why: after a takeover in this same process a newer segment of the run may be in flight;
    // a finishing segment removes only its own entry.
    entry.done = this.execute(segment, start, abort.signal)
      .catch((e: unknown) => this.logger.error({ runId: segment.run.id, err: e }, 'run segment crashed'))
      .finally(() => {
        if (this.inFlight.get(segment.run.id) === entry) this.inFlight.delete(segment.run.id);
      });
    this.inFlight.set(segment.run.id, entry);
  }

  /** How many segments this process holds: executing, or claimed and waiting for a slot. */
  activeCount(): number {
    return this.inFlight.size;
  }

  /** How many segments execute in this process now (hold a slot). */
  executingCount(): number {
    return this.slotsOfProcess?.busy ?? 0;
  }

  /** The execution slots; created on first use, when the configuration is known. */
  private get slots(): SegmentSlots {
    return (this.slotsOfProcess ??= new SegmentSlots(this.config.workerConcurrency));
  }

  /** Stops a segment running here at its next step boundary (after a cancel). */
  interrupt(runId: string): void {
    this.inFlight.get(runId)?.abort.abort('cancel');
  }

  /** Resolves when the segment of a run executing in this process has ended. */
  async settled(runId: string): Promise<void> {
    await this.inFlight.get(runId)?.done;
  }

  async onApplicationShutdown(): Promise<void> {
    // why: a segment still waiting for a slot has done nothing yet: it goes back to the queue
    // at once (see execute) rather than starting while the process winds down.
    this.slotsOfProcess?.closeQueue();
    const pending = [...this.inFlight.values()];
    const deadline = new Promise((r) => setTimeout(r, 10_000).unref());
    await Promise.race([Promise.all(pending.map((p) => p.done)), deadline]);
    // why: a segment stopped by the shutdown gives its run back to the queue (see finish), so
    // another process continues it at once instead of after the lease expires.
    for (const p of this.inFlight.values()) p.abort.abort('shutdown');
    await Promise.all([...this.inFlight.values()].map((p) => p.done));
  }

  private async execute(segment: Segment, start: 'now' | 'when-free', signal: AbortSignal): Promise<void> {
    const { lease } = segment;
    // why: from the claim on, including a wait for a slot, the lease is kept alive.
    const heartbeat = setInterval(
      () => void this.repository.renewLease(lease, this.config.runLeaseSeconds).catch(() => false),
      Math.max(250, (this.config.runLeaseSeconds * 1000) / 3),
    );
    heartbeat.unref();
    try {
      if (!(await this.slots.enter(start, signal))) return await this.giveBack(segment, signal);
      try {
        await this.executeInSlot(segment, signal);
      } finally {
        this.slots.leave();
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * A claimed segment that never started: back to the queue (the shutdown), or left as the
   * cancel that stopped it settled it.
   */
  private async giveBack(segment: Segment, signal: AbortSignal): Promise<void> {
    if (signal.aborted && signal.reason !== 'shutdown') return;
    try {
      await this.repository.requeue(segment.lease);
    } catch (e) {
      this.logger.error(
        { runId: segment.run.id, err: e },
        'could not requeue a waiting run; the reaper will',
      );
    }
  }

  private async executeInSlot(segment: Segment, signal: AbortSignal): Promise<void> {
    const { run, lease } = segment;
    const startedAt = Date.now();
    const leaseSeconds = this.config.runLeaseSeconds;
    const steps = new KeptSteps(this.repository, this.transactions, lease, leaseSeconds, run.stepCount);
    const live: Live = {
      steps,
      turn: run.turn,
      lastProgressAt: startedAt,
      writes: new EffectWrites(this.repository, this.transactions, lease, leaseSeconds, steps),
    };
    const answer = this.answers.begin(run.id, run.turn);
    try {
      const owner = segment.owner ?? (await this.principals.load(run.ownerId));
      if (!owner) throw new Error(`run ${run.id}: owner ${run.ownerId} is gone`);
      const ports = this.ports(segment, owner, live, signal, answer);
      const outcome = await this.play(segment, owner, ports);
      this.answers.end(answer);
      await this.finish(segment, outcome, signal, live.steps);
      this.metrics.segmentFinished(segmentKind(segment), outcome.kind, (Date.now() - startedAt) / 1000);
      if (outcome.kind === 'completed' && outcome.budget) {
        this.metrics.runStoppedByBudget(segment.configuration.identifier, outcome.budget);
      }
    } catch (e) {
      if (e instanceof LeaseLostError) {
        this.logger.warn({ runId: run.id }, 'lease lost; this process stops the run here');
        return;
      }
      this.logger.error({ runId: run.id, err: e }, 'run segment failed');
      await this.failOnFault(segment);
    } finally {
      this.answers.end(answer);
    }
  }

  private async play(segment: Segment, owner: AuthUser, ports: AgentPorts): Promise<RunOutcome> {
    const ctx = await this.runContext(segment, owner);
    const cp = segment.checkpoint;
    switch (cp.kind) {
      case 'start':
        return runAgent(
          {
            ...ctx,
            prompt: cp.prompt,
            messages: cp.messages,
            systemPrompt: withContext(segment.configuration.systemPrompt, cp.contextNote),
            skills: cp.skills,
            processPin: cp.processPin,
            processInstructions: cp.processGuidance,
            skillInvocation: segment.run.skillInvocation ?? undefined,
            droppedProcess: cp.droppedProcess,
          },
          ports,
        );
      case 'state':
        if (segment.decision) return resumeAgent(ctx, cp.state, segment.decision, ports);
        return runAgent(
          { ...ctx, systemPrompt: segment.configuration.systemPrompt, initialState: cp.state },
          ports,
        );
      case 'decided':
        return resumeAgent(ctx, cp.state, cp.decision, ports);
    }
  }

  private async runContext(segment: Segment, owner: AuthUser): Promise<RunContext> {
    const { run, configuration } = segment;
    const pageId = run.subjectPageId ?? segment.pageId ?? (await this.pages.defaultPageId()) ?? 0;
    return {
      runId: run.id,
      owner: { id: owner.id },
      workspaceId: run.workspaceId,
      subject: { pageId, languageId: run.subjectLanguageId ?? 0 },
      maxIterations: run.maxIterations,
      privacyLevel: configuration.privacyLevel,
    };
  }

  private ports(
    segment: Segment,
    owner: AuthUser,
    live: Live,
    signal: AbortSignal,
    answer: AnswerStream,
  ): AgentPorts {
    const { run, configuration } = segment;
    const keepAliveMs = this.config.progressKeepAliveSeconds * 1000;
    return {
      provider: storingFirst(
        createProvider({
          provider: configuration.provider,
          model: configuration.model,
          providerOptions: configuration.providerOptions,
          secret: (name: string) => this.config.secret(name),
          access: this.config.providerAccess,
        }),
        live.steps,
      ),
      tools: this.tools,
      content: new OwnerContentPort(this.pages, owner, live.writes.fence(), segment.readAhead),
      signal,
      // why: kept, and stored with the next ones before the segment's next model call, effect
      // or settle (KeptSteps): one commit for a round's steps instead of one each.
      recordStep: (stored: Step): Promise<StepReceipt> =>
        Promise.resolve({ sequence: live.steps.keep(stored) }),
      shouldStop: () => signal.aborted,
      budgetReached: (used) => this.budget.reached(run, configuration, used.totalTokens),
      setPendingEffect: (effect) => live.writes.announce(effect),
      completeEffect: async (stored, checkpoint): Promise<StepReceipt[]> => {
        // why: the steps, the cleared effect and the state after the write in one statement: a
        // requeued run continues after that write instead of repeating it.
        const sealed = checkpoint
          ? this.vault.seal(run.id, { v: 1, kind: 'state', state: checkpoint })
          : undefined;
        const sequences = await live.writes.complete(stored, sealed);
        return sequences.map((sequence) => ({ sequence }));
      },
      onStep: (step: Step, receipt: StepReceipt | void) => {
        if (!receipt) return;
        this.metrics.stepRecorded(step.kind, step.durationMs / 1000);
        if (step.kind === 'LLM') this.metrics.tokensUsed(configuration.identifier, usageOf(step));
        live.lastProgressAt = Date.now();
        const at = new Date().toISOString();
        const announce = (sequence: number) =>
          this.events.step(run.id, { sequence, ...step, at }, 'RUNNING', live.turn);
        if (live.steps.announceWhenStored(receipt.sequence, announce)) return;
        // why: a step stored inside `atomically` is announced once that transaction commits.
        this.transactions.afterCommit(() => announce(receipt.sequence));
      },
      atomically: <T>(work: () => Promise<T>): Promise<T> => live.writes.atomically(work),
      onDelta: (delta: string) => {
        answer.push(delta);
        const now = Date.now();
        if (now - live.lastProgressAt < keepAliveMs) return;
        live.lastProgressAt = now;
        void this.events.keepAlive(run.id, live.steps.stored, live.turn);
      },
    };
  }

  /**
   * Writes where the segment stopped under its lease (the settler), with the steps it still
   * kept in the same statement; nothing when fenced out.
   */
  private async finish(
    segment: Segment,
    outcome: RunOutcome,
    signal: AbortSignal,
    steps: KeptSteps,
  ): Promise<void> {
    const settlement = settlementOf(segment, outcome, this.vault);
    if (!settlement) {
      // why: a segment stopped by the shutdown gives its run back to the queue; a cancel
      // settled the run (and announced it) before the loop noticed.
      if (signal.reason === 'shutdown') await this.repository.requeue(segment.lease);
      return;
    }
    await this.settler.settleSegment(segment.lease, settlement, steps, segment.run.chatTurn);
  }

  /** A fault (not a provider failure): the run fails rather than staying RUNNING. */
  private async failOnFault(segment: Segment): Promise<void> {
    try {
      await this.settler.settle(
        { lease: segment.lease },
        { kind: 'FAILED', reason: 'NOT_RETRYABLE', message: 'The run stopped on an internal error' },
      );
    } catch (e) {
      this.logger.error({ runId: segment.run.id, err: e }, 'could not fail the run; the reaper will');
    }
  }
}

/** The tokens an LLM step reports (zero where a provider reported none). */
function usageOf(step: Step): { input: number; output: number } {
  const usage = step.payload.usage as Partial<TokenUsage> | undefined;
  return { input: usage?.promptTokens ?? 0, output: usage?.completionTokens ?? 0 };
}
