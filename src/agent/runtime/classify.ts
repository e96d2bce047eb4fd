import type { ToolSet } from '../tools/registry';
import type { RunSubject, ToolCall } from './types';

/** How one call of a round is treated. */
export type CallClass = 'approval' | 'input' | 'read';

/** A call refused before the suspend, with the error the model reads. */
export interface RefusedCall {
  readonly call: ToolCall;
  readonly error: string;
}

/**
 * What the loop does with a round, decided before any call executes (docs/run-lifecycle.md "Rounds").
 * - `execute`: every call runs now.
 * - `approval`: the run suspends WAITING_FOR_APPROVAL with `pending`; `runFirst` execute and
 *   `refused` get an error result before the suspend (only in a process run).
 * - `input`: the run suspends WAITING_FOR_INPUT; `inputCall` is the question, `pending` all calls.
 */
export type RoundPlan =
  | { readonly kind: 'execute'; readonly calls: readonly ToolCall[] }
  | {
      readonly kind: 'approval';
      readonly pending: readonly ToolCall[];
      readonly runFirst: readonly ToolCall[];
      readonly refused: readonly RefusedCall[];
    }
  | { readonly kind: 'input'; readonly pending: readonly ToolCall[]; readonly inputCall: ToolCall };

/** Options of a classification. */
export interface ClassifyOptions {
  /** The run carries a process pin: at most one approval-bound call pending per turn. */
  readonly processRun: boolean;
  /** Defaults for argument resolution (an input call's arguments must be valid to pause). */
  readonly subject: RunSubject;
}

/**
 * Classifies one call: a tool declaring a write, or a name this run does not know, needs
 * approval; an input tool with valid arguments asks for input; everything else reads (an
 * input call with invalid arguments just gets its error result).
 */
export function classifyCall(call: ToolCall, tools: ToolSet, subject: RunSubject): CallClass {
  const prepared = tools.prepare(call.name, call.arguments, { subject });
  if (!prepared || prepared.tool.writes) return 'approval';
  if (prepared.tool.input && prepared.check.ok) return 'input';
  return 'read';
}

/** Classifies a whole round (see `RoundPlan`). */
export function classifyRound(
  calls: readonly ToolCall[],
  tools: ToolSet,
  options: ClassifyOptions,
): RoundPlan {
  const classes = calls.map((c) => classifyCall(c, tools, options.subject));
  if (classes.includes('approval')) {
    if (!options.processRun) return { kind: 'approval', pending: calls, runFirst: [], refused: [] };
    return processApprovalPlan(calls, classes, tools);
  }
  const inputAt = classes.indexOf('input');
  if (inputAt >= 0) return { kind: 'input', pending: calls, inputCall: calls[inputAt] as ToolCall };
  return { kind: 'execute', calls };
}

/**
 * A process run's approval round: the first write (else the first approval-bound call) is the
 * one pending call; other approval-bound calls and questions are refused; reads run first.
 */
function processApprovalPlan(
  calls: readonly ToolCall[],
  classes: readonly CallClass[],
  tools: ToolSet,
): RoundPlan {
  const firstWrite = calls.findIndex(
    (c, i) => classes[i] === 'approval' && tools.get(c.name)?.writes === true,
  );
  const chosenAt = firstWrite >= 0 ? firstWrite : classes.indexOf('approval');
  const runFirst: ToolCall[] = [];
  const refused: RefusedCall[] = [];
  calls.forEach((call, i) => {
    if (i === chosenAt) return;
    if (classes[i] === 'read') runFirst.push(call);
    else refused.push({ call, error: refusalText(classes[i]) });
  });
  return { kind: 'approval', pending: [calls[chosenAt] as ToolCall], runFirst, refused };
}

function refusalText(cls: CallClass | undefined): string {
  if (cls === 'input') {
    return 'Not asked: a change is waiting for approval in this turn. Ask again after it is decided.';
  }
  return 'Not carried out: a guided process proposes one change per turn. Propose it again after the pending change is decided.';
}
