import { ProviderError, sanitizeProviderMessage } from '../providers/provider';
import { classifyRound } from './classify';
import { assembleTranscript } from './context';
import { DecisionMismatchError, LeaseLostError } from './errors';
import { CANCELLED, executeCalls } from './execute';
import {
  appendRoundResults,
  budgetOutcome,
  cancelledOutcome,
  checkpointAfter,
  completedOutcome,
  failedOutcome,
  type LoopState,
  newLoopState,
  roundIsOpen,
  thaw,
} from './loop-state';
import type { AgentPorts, StartInput } from './ports';
import { Session } from './session';
import { contextStep, droppedStep, llmStep, requestStep } from './steps';
import { suspendRound } from './suspend';
import {
  addUsage,
  type AssistantMessage,
  type BudgetScope,
  type ProviderResponse,
  type RunOutcome,
  type SuspendedState,
  type ToolCall,
} from './types';

/**
 * Runs a new run (or continues a checkpoint without a pending turn) until it completes,
 * suspends, fails or notices a cancel. Records a DROPPED step (when a process was dropped) and
 * a CONTEXT step first, then per round: REQUEST, the provider call, LLM, and either the TOOL /
 * TOOL_WRITE steps of executed calls or a suspend.
 *
 * Throws whatever a port throws (`LeaseLostError` above all): nothing more is done then. A
 * provider failure is an outcome (`failed`, PROVIDER_FAILED), not an exception.
 */
export async function runAgent(input: StartInput, ports: AgentPorts): Promise<RunOutcome> {
  const session = new Session(input, ports);
  if (input.initialState) return continueCheckpoint(session, input.initialState);
  const loop = newLoopState(input, assembleTranscript(input));
  if (await session.stopping()) return cancelledOutcome(loop);
  if (input.droppedProcess) await session.record(droppedStep(input.droppedProcess.reason));
  await session.record(contextStep(input, loop.transcript, session.tools.names()));
  return driveLoop(session, loop);
}

/**
 * Continues a checkpoint (`pending: null`): first the rest of an open round (its approved
 * `carryOver` calls, results in call order), then the loop.
 */
async function continueCheckpoint(session: Session, state: SuspendedState): Promise<RunOutcome> {
  if (state.pending) throw new DecisionMismatchError('A paused state resumes through resumeAgent');
  const loop = thaw(state);
  if (!roundIsOpen(loop)) return driveLoop(session, loop);
  const done = await executeCalls(
    session,
    loop.iterations,
    state.carryOver ?? [],
    undefined,
    checkpointAfter(loop, state.settledResults),
  );
  if (done === CANCELLED) return cancelledOutcome(loop);
  appendRoundResults(loop, [...state.settledResults, ...done]);
  return driveLoop(session, loop);
}

/** The loop proper: rounds until an outcome. Shared by `runAgent` and `resumeAgent`. */
export async function driveLoop(session: Session, loop: LoopState): Promise<RunOutcome> {
  for (;;) {
    if (await session.stopping()) return cancelledOutcome(loop);
    if (loop.iterations >= session.maxIterations) return completedOutcome(loop, closingAnswer(loop), true);
    const budget = await session.budgetReached(loop.usage);
    if (budget) return budgetOutcome(loop, closingAnswer(loop, BUDGET_NOTES[budget]), budget);
    const response = await askProvider(session, loop);
    if (!isResponse(response)) return response;
    if (response.toolCalls.length === 0) return completedOutcome(loop, response.text);
    const stop = await playRound(session, loop, response.toolCalls);
    if (stop) return stop;
  }
}

/** REQUEST step, the provider call, LLM step; a failure or cancel is an outcome. */
async function askProvider(session: Session, loop: LoopState): Promise<ProviderResponse | RunOutcome> {
  const round = loop.iterations + 1;
  const callIndex = loop.providerCalls + 1;
  const tools = session.tools.specs();
  await session.record(requestStep(round, callIndex, loop.transcript, loop.sentCount, session.tools.names()));
  loop.sentCount = loop.transcript.length;
  if (await session.stopping()) return cancelledOutcome(loop);
  const started = session.now();
  loop.providerCalls = callIndex;
  let response: ProviderResponse;
  try {
    response = await session.ports.provider.complete(
      { messages: [...loop.transcript], tools, callIndex },
      { onDelta: (d) => session.delta(d), signal: session.ports.signal },
    );
  } catch (error) {
    return providerFailure(session, loop, error);
  }
  loop.iterations = round;
  loop.usage = addUsage(loop.usage, response.usage);
  loop.transcript.push(assistantMessage(response));
  await session.record(llmStep(round, callIndex, response, session.now() - started));
  return response;
}

async function providerFailure(session: Session, loop: LoopState, error: unknown): Promise<RunOutcome> {
  if (error instanceof LeaseLostError) throw error;
  if (await session.stopping()) return cancelledOutcome(loop);
  if (error instanceof ProviderError)
    return failedOutcome(loop, 'PROVIDER_FAILED', error.message, error.retryable);
  const message = sanitizeProviderMessage(error instanceof Error ? error.message : String(error));
  return failedOutcome(loop, 'PROVIDER_FAILED', message, false);
}

/** Classifies the round, then executes it or suspends. Undefined: go on with the next round. */
async function playRound(
  session: Session,
  loop: LoopState,
  calls: readonly ToolCall[],
): Promise<RunOutcome | undefined> {
  const plan = classifyRound(calls, session.tools, {
    processRun: loop.processPin != null,
    subject: session.ctx.subject,
  });
  if (plan.kind !== 'execute') return suspendRound(session, loop, plan);
  const results = await executeCalls(session, loop.iterations, plan.calls);
  if (results === CANCELLED) return cancelledOutcome(loop);
  loop.transcript.push(...results);
  return undefined;
}

function assistantMessage(response: ProviderResponse): AssistantMessage {
  if (response.toolCalls.length === 0) return { role: 'assistant', content: response.text };
  return { role: 'assistant', content: response.text, toolCalls: response.toolCalls };
}

function isResponse(value: ProviderResponse | RunOutcome): value is ProviderResponse {
  return !('kind' in value);
}

const BUDGET_NOTES: Record<BudgetScope, string> = {
  RUN: '(Stopped before a final answer: this run used up its token budget.)',
  DAY: "(Stopped before a final answer: today's token budget of this run's owner is used up.)",
};

/** The answer synthesised at a limit: the last text, then why it stops (default: the iteration ceiling). */
export function closingAnswer(
  loop: LoopState,
  note = `(Stopped after ${loop.iterations} rounds, the most this run may take, before a final answer.)`,
): string {
  const last = [...loop.transcript]
    .reverse()
    .find((m) => m.role === 'assistant' && m.content.trim().length > 0);
  return last ? `${last.content.trim()}\n\n${note}` : note;
}
