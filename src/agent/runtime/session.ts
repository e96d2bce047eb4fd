import type { ToolSet } from '../tools/registry';
import type { ToolContext } from '../tools/tool';
import { filterStep } from './privacy';
import type { AgentPorts, RunContext, StepReceipt } from './ports';
import type { BudgetScope, Step, SuspendedState, TokenUsage } from './types';

/** One executing segment of a run: its context, ports and the tools it may use. */
export class Session {
  readonly tools: ToolSet;
  readonly maxIterations: number;

  constructor(
    readonly ctx: RunContext,
    readonly ports: AgentPorts,
  ) {
    this.tools = ports.tools.select(ctx.enabledTools);
    this.maxIterations = Math.max(1, Math.floor(ctx.maxIterations));
  }

  /**
   * Stores the privacy-filtered copy, then shows the full step to the observer. A failing
   * store (LeaseLostError) propagates before the observer sees anything.
   */
  async record(step: Step): Promise<void> {
    const receipt = await this.ports.recordStep(filterStep(step, this.ctx.privacyLevel));
    this.observe(step, receipt);
  }

  /**
   * Stores the privacy-filtered copies of a write call's steps with the pending effect cleared
   * (one port call), then shows each full step to the observer, as `record` does.
   */
  async completeEffect(steps: readonly Step[], checkpoint?: SuspendedState): Promise<void> {
    const level = this.ctx.privacyLevel;
    const receipts = await this.ports.completeEffect(
      steps.map((s) => filterStep(s, level)),
      checkpoint,
    );
    steps.forEach((step, i) => this.observe(step, receipts[i]));
  }

  private observe(step: Step, receipt: StepReceipt | void): void {
    try {
      this.ports.onStep?.(step, receipt);
    } catch {
      // why: an observer (a stream) must not change how the run goes.
    }
  }

  /** The cancel check of a step boundary. */
  async stopping(): Promise<boolean> {
    return (await this.ports.shouldStop()) === true;
  }

  /** The budget check of a step boundary (before a model call); null when no cap is reached. */
  async budgetReached(runTotal: TokenUsage): Promise<BudgetScope | null> {
    return (await this.ports.budgetReached?.(runTotal)) ?? null;
  }

  /** Forwards a text delta to the keep-alive observer, ignoring its failures. */
  delta(delta: string): void {
    try {
      this.ports.onDelta?.(delta);
    } catch {
      // why: as for onStep, observers never break the run.
    }
  }

  now(): number {
    return this.ports.now?.() ?? Date.now();
  }

  toolContext(): ToolContext {
    const { runId, owner, workspaceId, subject } = this.ctx;
    return { runId, owner, workspaceId, subject, content: this.ports.content };
  }
}
