import { canonicalJson } from '../../common/canonical-json';
import { toolError } from '../tools/tool';
import { DecisionMismatchError, PreviewChangedError } from './errors';
import { asToolCall, CANCELLED, executeCalls, settleCall } from './execute';
import { validateInput } from './input';
import { driveLoop } from './loop';
import {
  appendRoundResults,
  cancelledOutcome,
  checkpointAfter,
  type LoopState,
  suspendedOutcome,
  thaw,
} from './loop-state';
import type { AgentPorts, Decision, RunContext } from './ports';
import { Session } from './session';
import { pendingCalls, pendingTurn } from './suspend';
import type { PendingTurn, RunOutcome, SuspendedState, ToolCall, ToolResultMessage } from './types';

/**
 * Continues a paused run with a decision that already passed the decision layer's gates.
 * - approve: every write's preview is recomputed first; if any differs from the one shown
 *   (the page changed), nothing executes and the run suspends again (a new turn and digest);
 *   else the pending calls execute (writes inside a pending effect);
 * - deny: every pending call gets a result naming who declined (and VARIANT / SKIP);
 * - input: the values are validated (`InvalidInputError`) and laid over the input call's
 *   arguments for the keys its schema declares; that call's result is the values.
 * Then the loop is re-entered. The APPROVAL / INPUT step is NOT recorded here: the decision
 * layer records it (`decisionStep`) before calling this. Port errors propagate as in `runAgent`.
 */
export async function resumeAgent(
  ctx: RunContext,
  state: SuspendedState,
  decision: Decision,
  ports: AgentPorts,
): Promise<RunOutcome> {
  const pending = pendingFor(state, decision);
  const values = decision.kind === 'input' ? validateInput(pending, decision.values) : undefined;
  const session = new Session(ctx, ports);
  const loop = thaw(state);
  if (await session.stopping()) return cancelledOutcome(loop);
  const results = await carryOut(session, loop, state, decision, values);
  if (results === CANCELLED) return cancelledOutcome(loop);
  if (!Array.isArray(results)) return suspendedOutcome(loop, results, state.settledResults);
  appendRoundResults(loop, [...state.settledResults, ...results]);
  return driveLoop(session, loop);
}

/** The results of the decision, a new pending turn (changed previews), or a cancel. */
async function carryOut(
  session: Session,
  loop: LoopState,
  state: SuspendedState,
  decision: Decision,
  values: Record<string, unknown> | undefined,
): Promise<ToolResultMessage[] | PendingTurn | typeof CANCELLED> {
  const pending = state.pending as PendingTurn;
  const calls = pending.calls.map(asToolCall);
  switch (decision.kind) {
    case 'approve':
      return approve(session, loop, state, pending, calls);
    case 'deny':
      return declineAll(session, loop.iterations, calls, decision);
    case 'input': {
      const inputCallId = pending.inputRequest?.callId;
      return executeCalls(session, loop.iterations, calls, (c) =>
        c.id === inputCallId ? { inputValues: values } : undefined,
      );
    }
  }
}

/**
 * Carries out an approval. Every preview is recomputed first and compared with the one shown;
 * a lone write whose tool `verifiesPreview` instead checks its preview under its own write's
 * lock, which spares the separate read and leaves no moment between the check and the write.
 * Either way a changed preview executes nothing and asks again with a new turn.
 */
async function approve(
  session: Session,
  loop: LoopState,
  state: SuspendedState,
  pending: PendingTurn,
  calls: readonly ToolCall[],
): Promise<ToolResultMessage[] | PendingTurn | typeof CANCELLED> {
  const lone = calls.length === 1 && verifiedInWrite(session, calls[0]!) ? pending.calls[0]! : null;
  if (!lone) {
    const changed = await changedTurn(session, pending);
    if (changed) return changed;
  }
  const checkpoint = checkpointAfter(loop, state.settledResults);
  const options = lone ? () => ({ approvedPreview: lone.preview }) : undefined;
  try {
    return await executeCalls(session, loop.iterations, calls, options, checkpoint);
  } catch (e) {
    if (!(e instanceof PreviewChangedError)) throw e;
    return pendingTurn('APPROVAL', pending.turn + 1, await pendingCalls(session, calls));
  }
}

/** Whether the call's tool checks the approved preview inside its transactional write. */
function verifiedInWrite(session: Session, call: ToolCall): boolean {
  const tool = session.tools.get(call.name);
  return tool?.verifiesPreview === true && tool.effect === 'transactional';
}

/** A new approval turn when any recomputed preview differs from the one shown; else null. */
async function changedTurn(session: Session, pending: PendingTurn): Promise<PendingTurn | null> {
  const recomputed = await pendingCalls(session, pending.calls.map(asToolCall));
  const same = recomputed.every(
    (c, i) => canonicalJson(c.preview) === canonicalJson(pending.calls[i]?.preview),
  );
  return same ? null : pendingTurn('APPROVAL', pending.turn + 1, recomputed);
}

async function declineAll(
  session: Session,
  round: number,
  calls: readonly ToolCall[],
  decision: Extract<Decision, { kind: 'deny' }>,
): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  for (const call of calls) {
    results.push(await settleCall(session, round, call, toolError(declineText(decision))));
  }
  return results;
}

/** What the model reads for a declined call. */
export function declineText(decision: Extract<Decision, { kind: 'deny' }>): string {
  if (decision.reason === 'EXPIRED') {
    return 'Nobody approved this before its deadline; nothing was done. Reason: EXPIRED (the approval lapsed; tell the user, do not retry on your own).';
  }
  const base = `Declined by ${decision.decidedBy}; nothing was done.`;
  if (decision.reason === 'VARIANT')
    return `${base} Reason: VARIANT (they want a different variant; propose another).`;
  if (decision.reason === 'SKIP') return `${base} Reason: SKIP (skip this change and go on without it).`;
  return base;
}

function pendingFor(state: SuspendedState, decision: Decision): PendingTurn {
  const pending = state.pending;
  if (!pending) throw new DecisionMismatchError('The run has no pending turn');
  const needs = decision.kind === 'input' ? 'INPUT' : 'APPROVAL';
  if (pending.kind !== needs)
    throw new DecisionMismatchError(`The run waits for ${pending.kind}, not ${needs}`);
  return pending;
}
