import type { WrittenRecord } from '../tools/content-port';
import type { ToolResult } from '../tools/tool';
import type { Decision, StartInput } from './ports';
import type {
  PendingTurn,
  ProviderResponse,
  Step,
  SuspendedState,
  ToolCall,
  TranscriptMessage,
} from './types';

/** CONTEXT: what was assembled for the first round (sizes, subject, skills; messages are content). */
export function contextStep(
  input: StartInput,
  transcript: readonly TranscriptMessage[],
  tools: string[],
): Step {
  return {
    kind: 'CONTEXT',
    round: 1,
    durationMs: 0,
    payload: {
      subject: { pageId: input.subject.pageId, languageId: input.subject.languageId },
      workspaceId: input.workspaceId,
      processRun: input.processPin != null,
      // why: opaque to the runtime; recorded so a trace shows which process a turn started or continued.
      process: input.processPin ?? null,
      invocation: input.skillInvocation ?? null,
      // why: a number, so kept at every privacy level: which version of the process guided the turn.
      processVersion: input.processInstructions?.version ?? null,
      maxIterations: input.maxIterations,
      systemPromptLength: input.systemPrompt.length,
      historyCount: input.messages?.length ?? 0,
      promptLength: input.prompt?.length ?? 0,
      skills: (input.skills ?? []).map((s) => s.identifier),
      tools,
      messages: transcript,
    },
  };
}

/** DROPPED: the runtime dropped a skill process (reason code only). */
export function droppedStep(reason: string): Step {
  return { kind: 'DROPPED', round: 1, durationMs: 0, payload: { reason } };
}

/**
 * REQUEST: what is sent. `messages` holds only the messages not carried by an earlier REQUEST
 * step (so a long run does not store its transcript again at every round).
 */
export function requestStep(
  round: number,
  callIndex: number,
  transcript: readonly TranscriptMessage[],
  sentCount: number,
  tools: string[],
): Step {
  const fresh = transcript.slice(sentCount);
  return {
    kind: 'REQUEST',
    round,
    durationMs: 0,
    payload: {
      callIndex,
      messageCount: transcript.length,
      newMessageCount: fresh.length,
      tools,
      messages: fresh,
    },
  };
}

/** LLM: one model response (text and tool calls are content; usage and finish reason are not). */
export function llmStep(
  round: number,
  callIndex: number,
  response: ProviderResponse,
  durationMs: number,
): Step {
  return {
    kind: 'LLM',
    round,
    durationMs,
    payload: {
      callIndex,
      finishReason: response.finishReason,
      usage: response.usage,
      toolNames: response.toolCalls.map((c) => c.name),
      content: response.text,
      toolCalls: response.toolCalls,
    },
  };
}

/** TOOL: one tool result (arguments and result are content). */
export function toolStep(round: number, call: ToolCall, result: ToolResult, durationMs: number): Step {
  return {
    kind: 'TOOL',
    round,
    durationMs,
    payload: {
      callId: call.id,
      toolName: call.name,
      isError: !result.ok,
      arguments: call.arguments,
      result: result.ok ? (result.output ?? null) : { error: result.error },
    },
  };
}

/** TOOL_WRITE: the table and id of a record a tool wrote (metadata only). */
export function toolWriteStep(round: number, call: ToolCall, written: WrittenRecord): Step {
  return {
    kind: 'TOOL_WRITE',
    round,
    durationMs: 0,
    payload: { table: written.table, id: written.id, callId: call.id, toolName: call.name },
  };
}

/**
 * The APPROVAL or INPUT step of a decision, for the decision layer to record (the runtime
 * does not record it): `{approved, decidedBy, reason?, turn, digest, ...}` or
 * `{submittedBy, turn, digest, toolName}`, never the input values. `decidedBy` is whatever
 * identifies the decider in the log (a user id is best).
 */
export function decisionStep(
  decision: Decision,
  state: SuspendedState,
  decidedBy: string | number | null,
): Step {
  const pending = state.pending as PendingTurn;
  const common = { turn: pending.turn, digest: pending.digest };
  if (decision.kind === 'input') {
    const toolName = pending.inputRequest?.toolName ?? null;
    return {
      kind: 'INPUT',
      round: state.iterations,
      durationMs: 0,
      payload: { submittedBy: decidedBy, toolName, ...common },
    };
  }
  const payload: Record<string, unknown> = {
    approved: decision.kind === 'approve',
    decidedBy,
    callCount: pending.calls.length,
    toolNames: pending.calls.map((c) => c.toolName),
    ...common,
  };
  if (decision.kind === 'deny' && decision.reason) payload.reason = decision.reason;
  return { kind: 'APPROVAL', round: state.iterations, durationMs: 0, payload };
}
