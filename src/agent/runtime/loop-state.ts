import type { StartInput } from './ports';
import type {
  BudgetScope,
  CancelledOutcome,
  CompletedOutcome,
  FailedOutcome,
  FailureReason,
  OutcomeCounters,
  PendingTurn,
  SuspendedOutcome,
  SuspendedState,
  TokenUsage,
  ToolCall,
  ToolResultMessage,
  TranscriptMessage,
} from './types';
import { ZERO_USAGE } from './types';

/** The loop's working copy of a run's state (mutable while a segment executes). */
export interface LoopState {
  transcript: TranscriptMessage[];
  turn: number;
  iterations: number;
  providerCalls: number;
  usage: TokenUsage;
  sentCount: number;
  processPin?: unknown;
  skillInvocation?: unknown;
}

/** A fresh state for a new run. */
export function newLoopState(input: StartInput, transcript: TranscriptMessage[]): LoopState {
  return {
    transcript,
    turn: 0,
    iterations: 0,
    providerCalls: 0,
    usage: ZERO_USAGE,
    sentCount: 0,
    ...(input.processPin != null ? { processPin: input.processPin } : {}),
    ...(input.skillInvocation != null ? { skillInvocation: input.skillInvocation } : {}),
  };
}

/** A working copy of a stored state. */
export function thaw(state: SuspendedState): LoopState {
  return {
    transcript: [...state.transcript],
    turn: state.turn,
    iterations: state.iterations,
    providerCalls: state.providerCalls,
    usage: state.usage,
    sentCount: state.sentCount,
    ...(state.processPin != null ? { processPin: state.processPin } : {}),
    ...(state.skillInvocation != null ? { skillInvocation: state.skillInvocation } : {}),
  };
}

/** The storable state of a paused run. */
export function freeze(
  loop: LoopState,
  pending: PendingTurn | null,
  settledResults: readonly ToolResultMessage[],
  carryOver: readonly ToolCall[] = [],
): SuspendedState {
  return {
    version: 1,
    transcript: [...loop.transcript],
    pending,
    settledResults: [...settledResults],
    ...(carryOver.length > 0 ? { carryOver: [...carryOver] } : {}),
    turn: pending?.turn ?? loop.turn,
    iterations: loop.iterations,
    providerCalls: loop.providerCalls,
    usage: loop.usage,
    sentCount: loop.sentCount,
    ...(loop.processPin != null ? { processPin: loop.processPin } : {}),
    ...(loop.skillInvocation != null ? { skillInvocation: loop.skillInvocation } : {}),
  };
}

/**
 * The checkpoint builder of a round being executed: the loop's transcript (ending with the
 * assistant's calls), the results settled before plus those done, the calls left to run.
 */
export function checkpointAfter(
  loop: LoopState,
  settledBefore: readonly ToolResultMessage[],
): (done: readonly ToolResultMessage[], remaining: readonly ToolCall[]) => SuspendedState {
  return (done, remaining) => freeze(loop, null, [...settledBefore, ...done], remaining);
}

/** True when the transcript ends with tool calls that have no results yet (an open round). */
export function roundIsOpen(loop: LoopState): boolean {
  const last = loop.transcript.at(-1);
  return last?.role === 'assistant' && (last.toolCalls?.length ?? 0) > 0;
}

/**
 * Appends a round's results in the order the last assistant message asked for the calls (a
 * call without a result gets an error result, so the transcript stays well-formed).
 */
export function appendRoundResults(loop: LoopState, results: readonly ToolResultMessage[]): void {
  const asked = [...loop.transcript].reverse().find((m) => m.role === 'assistant')?.toolCalls ?? [];
  const byId = new Map(results.map((r) => [r.callId, r]));
  for (const call of asked) {
    loop.transcript.push(
      byId.get(call.id) ?? {
        role: 'tool',
        callId: call.id,
        toolName: call.name,
        content: JSON.stringify({ error: 'No result was recorded for this call.' }),
        isError: true,
      },
    );
  }
}

function counters(loop: LoopState): OutcomeCounters {
  return { usage: loop.usage, iterations: loop.iterations, providerCalls: loop.providerCalls };
}

export function completedOutcome(loop: LoopState, answer: string, truncated = false): CompletedOutcome {
  return {
    kind: 'completed',
    answer,
    truncated,
    terminationReason: truncated ? 'MAX_ITERATIONS' : 'COMPLETED',
    ...counters(loop),
  };
}

/** A stop at a token cap: like the iteration ceiling, a closing answer, truncated. */
export function budgetOutcome(loop: LoopState, answer: string, budget: BudgetScope): CompletedOutcome {
  return { ...completedOutcome(loop, answer, true), terminationReason: 'BUDGET_EXHAUSTED', budget };
}

export function suspendedOutcome(
  loop: LoopState,
  pending: PendingTurn,
  settledResults: readonly ToolResultMessage[],
): SuspendedOutcome {
  loop.turn = pending.turn;
  return { kind: 'suspended', pending, state: freeze(loop, pending, settledResults), ...counters(loop) };
}

export function failedOutcome(
  loop: LoopState,
  reason: FailureReason,
  message: string,
  retryable: boolean,
): FailedOutcome {
  return { kind: 'failed', reason, message, retryable, ...counters(loop) };
}

export function cancelledOutcome(loop: LoopState): CancelledOutcome {
  return { kind: 'cancelled', ...counters(loop) };
}
