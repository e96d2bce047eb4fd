import type { Provider } from '../providers/provider';
import type { ContentPort, RunOwner } from '../tools/content-port';
import type { ToolRegistry } from '../tools/registry';
import type { ToolEffect } from '../tools/tool';
import type {
  BudgetScope,
  PrivacyLevel,
  RunSubject,
  Step,
  SuspendedState,
  TokenUsage,
  ToolArguments,
} from './types';

/** What `recordStep` may hand back (the stored sequence), passed on to `onStep`. */
export interface StepReceipt {
  readonly sequence: number;
}

/** The non-idempotent tool call in flight (the run's `pendingEffect`). */
export interface PendingEffect {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: ToolArguments;
  /** The tool's declaration: whether the effect commits with the run's `applied` mark. */
  readonly effect: ToolEffect;
}

/**
 * What the runtime needs from the runs module. Every method may throw `LeaseLostError` (or
 * any fault): the loop does not catch it, so nothing more is executed or committed.
 */
export interface AgentPorts {
  readonly provider: Provider;
  /** The tool catalogue; the run uses `RunContext.enabledTools` of it. */
  readonly tools: ToolRegistry;
  /** The content module as the page tools see it (acts as the run's owner). */
  readonly content: ContentPort;
  /**
   * Persists one step, ALREADY privacy-filtered for storage (`AND lease_token = $mine`), and
   * renews the lease. Throw `LeaseLostError` when the lease is gone. An implementation may
   * keep the step and store it with later ones, as long as it is stored before the next
   * provider call, the next `setPendingEffect` / `completeEffect`, and the run's settle, and
   * `onStep`'s observers hear of it only once stored (the runs module's KeptSteps).
   */
  recordStep(stored: Step): Promise<StepReceipt | void>;
  /** The cancel check, asked at every step boundary; true stops the run as CANCELLED. */
  shouldStop(): boolean | Promise<boolean>;
  /**
   * The budget check, asked before every model call with the run's tokens so far (across
   * segments): a scope stops the run there (COMPLETED, truncated, BUDGET_EXHAUSTED), before
   * any REQUEST step of that call. Absent or null: no cap reached.
   */
  budgetReached?(runTotal: TokenUsage): BudgetScope | null | Promise<BudgetScope | null>;
  /**
   * Set before a write tool executes (the call). While set, a reaper requeues an expired run
   * only when the effect is `transactional` and was never marked applied, else fails it
   * NOT_RETRYABLE. An implementation may record a `transactional` effect with its write's
   * applied mark instead (in the write's transaction): until that commits nothing happened.
   */
  setPendingEffect(effect: PendingEffect): Promise<void>;
  /**
   * After a write tool executed: persists its steps (TOOL, then TOOL_WRITE where it wrote;
   * ALREADY privacy-filtered, in order, under the lease as `recordStep`) and clears the pending
   * effect, all at once (one statement), so no stop between them leaves an effect set whose
   * steps were recorded. The runtime hands over `checkpoint`: the state to continue from should
   * this segment stop now (`pending: null`, the write's result settled, the rest of the
   * approved calls in `carryOver`); store it with the clearing and continue it with
   * `runAgent({ ...ctx, initialState })`, so a requeue never repeats a finished write. One
   * receipt per step; `LeaseLostError` when the lease is gone (nothing stored).
   */
  completeEffect(
    stored: readonly Step[],
    checkpoint?: SuspendedState,
  ): Promise<ReadonlyArray<StepReceipt | void>>;
  /**
   * Optional: runs a `transactional` write call (the tool's write through the content port,
   * then `completeEffect`) as one unit of work, so the write commits together with its steps,
   * the cleared effect and the checkpoint, or not at all. Where given, nothing else needs to
   * record the effect: no stop can fall between the write and its completion. Observers
   * (`onStep`) must not announce what the unit stored before it commits. An implementation may
   * run `work` a second time where its first unit committed nothing (the runs module first
   * tries one statement, then a transaction), so `work` must have no effect of its own besides
   * the ports'.
   */
  atomically?<T>(work: () => Promise<T>): Promise<T>;
  /** Observer: the full, unfiltered step, called after `recordStep` succeeded. */
  onStep?(step: Step, receipt: StepReceipt | void): void;
  /** A text delta of a streaming provider (not a step; for keep-alive). */
  onDelta?(delta: string): void;
  /** Aborts a provider call in flight (for example on cancel). */
  readonly signal?: AbortSignal;
  /** Clock for step durations (default `Date.now`). */
  now?(): number;
}

/** The run fields every segment (start or continuation) executes with. */
export interface RunContext {
  readonly runId: string;
  /** The initiating user; tools run as this user, never as the decider. */
  readonly owner: RunOwner;
  /** Recorded at start; every continuation executes there. */
  readonly workspaceId: number;
  /** The page and language tools default to (fallbacks "Home" / 0 resolved by the caller). */
  readonly subject: RunSubject;
  /** Already clamped to the ceiling (AGENT_MAX_ITERATIONS_CEILING). */
  readonly maxIterations: number;
  readonly privacyLevel: PrivacyLevel;
  /** Tool names the configuration enables; undefined = every registered tool. */
  readonly enabledTools?: readonly string[];
}

/** An earlier chat message sent with the run. */
export interface HistoryMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** A non-process skill added to the context as fenced reference data. */
export interface ForcedSkill {
  readonly identifier: string;
  readonly name: string;
  readonly body: string;
}

/**
 * The instructions of the guided process a run belongs to (a process skill's pinned version):
 * sent as instructions, unlike forced skills, which are fenced reference data.
 */
export interface ProcessInstructions {
  readonly identifier: string;
  readonly name: string;
  readonly version: number;
  readonly body: string;
  /** The record the process works on: a page (null when none was open) and its language (0: unknown). */
  readonly subject: { readonly id: number | null; readonly languageId: number };
}

/** What a new run starts with. */
export interface StartInput extends RunContext {
  readonly systemPrompt: string;
  /** The user's prompt (sent last). */
  readonly prompt?: string;
  /** Earlier conversation messages (sent before the prompt). */
  readonly messages?: readonly HistoryMessage[];
  readonly skills?: readonly ForcedSkill[];
  /** Opaque process pin; present = a process run (one approval-bound call per turn). */
  readonly processPin?: unknown;
  /** The process's instructions for this turn (a process run's pinned skill version). */
  readonly processInstructions?: ProcessInstructions;
  /** Opaque skill invocation, carried in the state. */
  readonly skillInvocation?: unknown;
  /** Set when the runtime dropped a process: a DROPPED step `{reason}` is recorded first. */
  readonly droppedProcess?: { readonly reason: string };
  /**
   * Continue from a checkpoint that waits for nothing (`pending: null`), e.g. a requeued
   * segment; no CONTEXT step then. A state with a pending turn goes to `resumeAgent`.
   */
  readonly initialState?: SuspendedState;
}

/** Who decided, as the model is told (a username or display name; never from a payload). */
export type DeciderName = string;

/** A decision on the pending turn (one decision covers the whole turn). */
export type Decision =
  | { readonly kind: 'approve'; readonly decidedBy: DeciderName }
  | {
      readonly kind: 'deny';
      readonly decidedBy: DeciderName;
      /** EXPIRED: nobody decided before the turn's deadline (the expiry denies in their place). */
      readonly reason?: 'VARIANT' | 'SKIP' | 'EXPIRED' | null;
    }
  | { readonly kind: 'input'; readonly submittedBy: DeciderName; readonly values: unknown };
