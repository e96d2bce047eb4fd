import { resultContent, runTool, type RunToolOptions } from '../tools/run-tool';
import type { ToolResult } from '../tools/tool';
import type { Session } from './session';
import { toolStep, toolWriteStep } from './steps';
import type { PendingCall, SuspendedState, ToolCall, ToolResultMessage } from './types';

/** Builds the checkpoint handed over when a write's pending effect is cleared. */
export type CheckpointFor = (
  done: readonly ToolResultMessage[],
  remaining: readonly ToolCall[],
) => SuspendedState;

/** Marker: the run noticed a cancel between two calls. */
export const CANCELLED = Symbol('cancelled');

/**
 * Executes one call as the owner and records its TOOL (and TOOL_WRITE) steps. A write is
 * announced as the pending effect before it runs and cleared together with its steps.
 */
export async function executeCall(
  session: Session,
  round: number,
  call: ToolCall,
  options?: RunToolOptions,
  checkpoint?: (result: ToolResultMessage) => SuspendedState,
): Promise<ToolResultMessage> {
  const tool = session.tools.get(call.name);
  const writes = tool?.writes === true;
  if (writes) {
    await session.ports.setPendingEffect({
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
      // why: registration requires the declaration; were it missing, external is the safe guess.
      effect: tool?.effect ?? 'external',
    });
  }
  const execute = async (): Promise<ToolResultMessage> => {
    const started = session.now();
    const result = await runTool(session.tools, call, session.toolContext(), options);
    const steps = [toolStep(round, call, result, session.now() - started)];
    if (result.ok && result.written) steps.push(toolWriteStep(round, call, result.written));
    const message = toolMessage(call, result);
    // why: the effect is cleared with its steps, not before: a crash before that leaves it set
    // and the reaper settles NOT_RETRYABLE instead of repeating a write that may have happened.
    if (writes) await session.completeEffect(steps, checkpoint?.(message));
    else for (const step of steps) await session.record(step);
    return message;
  };
  // why: a transactional write and its completion in one unit of work commit together or not
  // at all, where the ports can do that; an external effect happens outside any transaction.
  if (writes && tool?.effect === 'transactional' && session.ports.atomically) {
    return session.ports.atomically(execute);
  }
  return execute();
}

/**
 * Executes calls in order, checking for a cancel before each (a step boundary). With
 * `checkpointFor`, each write hands over the state to continue from (results so far, calls left).
 */
export async function executeCalls(
  session: Session,
  round: number,
  calls: readonly ToolCall[],
  optionsFor: (call: ToolCall) => RunToolOptions | undefined = () => undefined,
  checkpointFor?: CheckpointFor,
): Promise<ToolResultMessage[] | typeof CANCELLED> {
  const results: ToolResultMessage[] = [];
  for (const [i, call] of calls.entries()) {
    if (await session.stopping()) return CANCELLED;
    const checkpoint =
      checkpointFor && ((r: ToolResultMessage) => checkpointFor([...results, r], calls.slice(i + 1)));
    results.push(await executeCall(session, round, call, optionsFor(call), checkpoint));
  }
  return results;
}

/** Gives a call a result without executing it (refused, declined) and records its TOOL step. */
export async function settleCall(
  session: Session,
  round: number,
  call: ToolCall,
  result: ToolResult,
): Promise<ToolResultMessage> {
  await session.record(toolStep(round, call, result, 0));
  return toolMessage(call, result);
}

/** The transcript entry of a call's result. */
export function toolMessage(call: ToolCall, result: ToolResult): ToolResultMessage {
  return {
    role: 'tool',
    callId: call.id,
    toolName: call.name,
    content: resultContent(result),
    isError: !result.ok,
  };
}

/** A pending call as the call it stands for (with the resolved arguments that were shown). */
export function asToolCall(call: PendingCall): ToolCall {
  return { id: call.callId, name: call.toolName, arguments: call.arguments };
}
