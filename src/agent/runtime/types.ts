/**
 * The agent runtime's data model: framework-free, plain JSON-able values, so a suspended run
 * can be encrypted, stored and resumed by another process.
 */

/** Tool arguments as the model sent them (an object; anything else is wrapped, see providers). */
export type ToolArguments = Record<string, unknown>;

/** One tool call a model asked for. `id` is unique within the run. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: ToolArguments;
}

/** A system message (the configuration's prompt, or fenced reference data). */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/** A user message (the prompt, or an earlier chat message). */
export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
}

/** A model response; `toolCalls` present when the model asked for tools. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
}

/** The result of one tool call, answering the assistant's call `callId`. */
export interface ToolResultMessage {
  readonly role: 'tool';
  readonly callId: string;
  readonly toolName: string;
  /** The result as the model reads it (JSON text). */
  readonly content: string;
  readonly isError: boolean;
}

/** One entry of the transcript the provider is sent. */
export type TranscriptMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/** What a provider is told about a tool: name, description, JSON Schema of the arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** Token counts of one provider call, or summed over a run. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** One provider call. */
export interface ProviderRequest {
  readonly messages: readonly TranscriptMessage[];
  readonly tools: readonly ToolSpec[];
  /**
   * 1-based index of this provider call within the run, counted across continuations (the
   * scripted provider answers round `callIndex`).
   */
  readonly callIndex: number;
}

/** Why the model stopped: `stop`, `tool_calls`, `length`, `content_filter`, or what the provider said. */
export type FinishReason = string;

/** One model response. */
export interface ProviderResponse {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
}

/** The kinds of recorded steps (docs/run-lifecycle.md "Steps"). */
export type StepKind =
  'REQUEST' | 'LLM' | 'TOOL' | 'TOOL_WRITE' | 'APPROVAL' | 'INPUT' | 'DROPPED' | 'CONTEXT';

/**
 * One event of a run's log. `payload` is the full, unfiltered payload; the stored copy goes
 * through `filterStepPayload` (privacy.ts).
 */
export interface Step {
  readonly kind: StepKind;
  readonly round: number;
  readonly durationMs: number;
  readonly payload: Record<string, unknown>;
}

/** Privacy level of stored steps: NONE < METADATA (default) < REDACTED < FULL. */
export type PrivacyLevel = 'NONE' | 'METADATA' | 'REDACTED' | 'FULL';

/** One call waiting for a decision, as the decider is shown it (and as the digest covers it). */
export interface PendingCall {
  readonly callId: string;
  readonly toolName: string;
  /** True for a tool declaring a write and for an unknown tool name. */
  readonly writes: boolean;
  /** The arguments with the run's defaults resolved (for example the subject page). */
  readonly arguments: ToolArguments;
  /** Human-readable lines of what approving would change; empty for reads. */
  readonly preview: readonly string[];
}

/** What an input pause asks for: the input tool's question and the JSON Schema of the values. */
export interface InputRequest {
  readonly toolName: string;
  readonly callId: string;
  readonly question: string | null;
  readonly schema: Record<string, unknown>;
}

/** Kind of a pause. */
export type PauseKind = 'APPROVAL' | 'INPUT';

/** The pause a suspended run waits in. One decision covers the whole turn. */
export interface PendingTurn {
  readonly kind: PauseKind;
  /** 1 for the first pause of the run, +1 for each later pause (a re-suspend too). */
  readonly turn: number;
  /** `turnDigest(...)` of this turn; the decision must carry it back. */
  readonly digest: string;
  readonly calls: readonly PendingCall[];
  /** Set for an INPUT pause. */
  readonly inputRequest?: InputRequest;
}

/** The run's subject: the page and language tools default to (the caller resolves fallbacks). */
export interface RunSubject {
  readonly pageId: number;
  readonly languageId: number;
}

/**
 * Everything needed to continue a run in another process: encrypted at rest
 * (state-cipher.ts), never returned by the API as such.
 */
export interface SuspendedState {
  readonly version: 1;
  readonly transcript: readonly TranscriptMessage[];
  /** The pause, or null for a checkpoint that waits for nothing. */
  readonly pending: PendingTurn | null;
  /**
   * Results already settled for calls of the paused round that are not pending (a process
   * run's reads that ran before the suspend, its refused approval-bound calls).
   */
  readonly settledResults: readonly ToolResultMessage[];
  /**
   * Calls already decided (approved) that still have to execute when this state continues:
   * set on the checkpoint handed over after each write of an approved turn, so a segment that
   * stops between two writes continues without repeating the first. Run by `runAgent`.
   */
  readonly carryOver?: readonly ToolCall[];
  /** Pauses so far (equals `pending.turn` while paused). */
  readonly turn: number;
  /** Rounds (provider calls that answered) so far. */
  readonly iterations: number;
  /** Provider calls so far, counted across continuations (the scripted provider's round). */
  readonly providerCalls: number;
  readonly usage: TokenUsage;
  /** How many transcript messages earlier REQUEST steps already carried. */
  readonly sentCount: number;
  /** Opaque process-skill pin (docs/chat-and-skills.md); present = a process run. */
  readonly processPin?: unknown;
  /** Opaque skill invocation the run started with. */
  readonly skillInvocation?: unknown;
}

/** Why a run failed. */
export type FailureReason = 'PROVIDER_FAILED' | 'POLICY_DENIED' | 'NOT_RETRYABLE';

/** Counters every outcome carries, so the caller can update the run row. */
export interface OutcomeCounters {
  readonly usage: TokenUsage;
  readonly iterations: number;
  readonly providerCalls: number;
}

/** Which token cap a run reached: its own, or its owner's for the day. */
export type BudgetScope = 'RUN' | 'DAY';

/** The run finished with an answer. */
export interface CompletedOutcome extends OutcomeCounters {
  readonly kind: 'completed';
  readonly answer: string;
  /** True when the loop stopped at the iteration ceiling or a budget and synthesised the answer. */
  readonly truncated: boolean;
  readonly terminationReason: 'COMPLETED' | 'MAX_ITERATIONS' | 'BUDGET_EXHAUSTED';
  /** Set with BUDGET_EXHAUSTED: the cap that stopped the run. */
  readonly budget?: BudgetScope;
}

/** The run paused: store `state` (encrypted) and show `pending`. */
export interface SuspendedOutcome extends OutcomeCounters {
  readonly kind: 'suspended';
  readonly pending: PendingTurn;
  readonly state: SuspendedState;
}

/** The run failed; `message` is sanitised (no keys, no credentials, capped). */
export interface FailedOutcome extends OutcomeCounters {
  readonly kind: 'failed';
  readonly reason: FailureReason;
  readonly message: string;
  /** A requeue may help (a provider's 5xx, 429, timeout or network failure). */
  readonly retryable: boolean;
}

/** The run noticed a cancel at a step boundary and stopped. */
export interface CancelledOutcome extends OutcomeCounters {
  readonly kind: 'cancelled';
}

/** How a segment of a run ended. */
export type RunOutcome = CompletedOutcome | SuspendedOutcome | FailedOutcome | CancelledOutcome;

/** An empty usage. */
export const ZERO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Sums two usages. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
