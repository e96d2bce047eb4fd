import { previewCall, resolvedArguments } from '../tools/run-tool';
import { toolError } from '../tools/tool';
import type { RoundPlan } from './classify';
import { turnDigest } from './digest';
import { CANCELLED, executeCalls, settleCall } from './execute';
import { cancelledOutcome, type LoopState, suspendedOutcome } from './loop-state';
import type { Session } from './session';
import type {
  InputRequest,
  PauseKind,
  PendingCall,
  PendingTurn,
  RunOutcome,
  ToolCall,
  ToolResultMessage,
} from './types';

type PausePlan = Exclude<RoundPlan, { kind: 'execute' }>;

/**
 * Suspends the run on a round that needs a decision: a process run's reads run and its
 * refused calls get their error results first; then the pending calls get their resolved
 * arguments and previews, and the turn its number (previous + 1) and digest.
 */
export async function suspendRound(session: Session, loop: LoopState, plan: PausePlan): Promise<RunOutcome> {
  const settled = plan.kind === 'approval' ? await settleBeforeSuspend(session, loop, plan) : [];
  if (settled === CANCELLED || (await session.stopping())) return cancelledOutcome(loop);
  const calls = await pendingCalls(session, plan.pending);
  const inputRequest = plan.kind === 'input' ? inputRequestOf(session, plan.inputCall) : undefined;
  const pending = pendingTurn(
    plan.kind === 'input' ? 'INPUT' : 'APPROVAL',
    loop.turn + 1,
    calls,
    inputRequest,
  );
  return suspendedOutcome(loop, pending, settled);
}

/** A pending turn with its digest. */
export function pendingTurn(
  kind: PauseKind,
  turn: number,
  calls: readonly PendingCall[],
  inputRequest?: InputRequest,
): PendingTurn {
  const digest = turnDigest({ kind, calls, inputRequest });
  return { kind, turn, digest, calls, ...(inputRequest ? { inputRequest } : {}) };
}

/** The calls as the decider sees them: resolved arguments, `writes`, previews of writes. */
export async function pendingCalls(session: Session, calls: readonly ToolCall[]): Promise<PendingCall[]> {
  const ctx = session.toolContext();
  const out: PendingCall[] = [];
  for (const call of calls) {
    const args = resolvedArguments(session.tools, call, ctx);
    const writes = session.tools.get(call.name)?.writes ?? true;
    const preview = writes ? await previewCall(session.tools, { ...call, arguments: args }, ctx) : [];
    out.push({ callId: call.id, toolName: call.name, writes, arguments: args, preview });
  }
  return out;
}

async function settleBeforeSuspend(
  session: Session,
  loop: LoopState,
  plan: Extract<RoundPlan, { kind: 'approval' }>,
): Promise<ToolResultMessage[] | typeof CANCELLED> {
  const ran = await executeCalls(session, loop.iterations, plan.runFirst);
  if (ran === CANCELLED) return CANCELLED;
  for (const refused of plan.refused) {
    ran.push(await settleCall(session, loop.iterations, refused.call, toolError(refused.error)));
  }
  return ran;
}

function inputRequestOf(session: Session, call: ToolCall): InputRequest {
  const args = resolvedArguments(session.tools, call, session.toolContext());
  const input = session.tools.get(call.name)?.input;
  if (!input) throw new Error(`"${call.name}" is not an input tool`);
  return { toolName: call.name, callId: call.id, question: input.question(args), schema: input.schema(args) };
}
