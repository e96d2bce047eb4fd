import { refusalMessage } from '../api/refusals';
import type { InboxItem, RunStatus } from '../api/types';
import { statusText } from '../components/progress-bar';
import type { DecisionAction } from '../components/use-decision';

/** What became of a decision once its run SETTLED. */
export interface Outcome {
  readonly key: string;
  readonly runId: string;
  readonly what: string;
  readonly action: DecisionAction['kind'];
  readonly status: RunStatus;
  readonly stepCount: number;
  /** Set where a worker handed the decision back (the run waits on the same turn again). */
  readonly handBackCode: string | null;
  /** Set where the server refused the decision and the run has left the list meanwhile. */
  readonly refusedCode: string | null;
  /** True where the run paused again on a new turn. */
  readonly newTurn: boolean;
  readonly tone: 'done' | 'waiting' | 'failed';
}

const VERB: Record<DecisionAction['kind'], string> = {
  approve: 'approved',
  deny: 'denied',
  input: 'answered',
};

/** One readable sentence for an outcome. */
export function describeOutcome(o: Outcome): string {
  if (o.refusedCode) return `Your decision on ${o.what} was refused: ${refusalMessage(o.refusedCode)}`;
  const head = `You ${VERB[o.action]} ${o.what}`;
  if (o.handBackCode) return `${head}, but the decision was handed back: ${refusalMessage(o.handBackCode)}`;
  if (o.newTurn) return `${head}: it is ${statusText(o.status)} again (after ${o.stepCount} steps).`;
  return `${head}: the run ${statusText(o.status)} after ${o.stepCount} steps (${o.status}).`;
}

/** How a card and its outcome name a run: its configuration and who started it. */
export function whatOf(item: InboxItem): string {
  return `${item.run.configuration.name} (started by ${item.run.owner.displayName})`;
}

/** The tone of a settled status, for styling. */
export function toneOf(status: RunStatus): Outcome['tone'] {
  if (status === 'COMPLETED') return 'done';
  if (status === 'FAILED' || status === 'CANCELLED') return 'failed';
  return 'waiting';
}
