import type { PendingTurn } from '../../../agent';
import type { DecisionView } from '../../approvals';

/** Who may decide a waiting run, as a webhook tells it (never their groups or rights). */
export interface ApproverFact {
  readonly id: number;
  readonly username: string;
  readonly displayName: string;
  /** False where they may deny but not approve (four-eyes, the decider gate). */
  readonly mayApprove: boolean;
}

/**
 * A call as webhooks show it: what the inbox shows an approver without detail access (tool,
 * whether it writes, its preview lines; previews on pages are withheld as for such an
 * approver who may show no page). Never the arguments.
 */
export interface CallFact {
  readonly toolName: string;
  readonly writes: boolean;
  readonly preview: readonly string[];
}

/** `run.waiting`: a run stopped for a decision. */
export function runWaitingData(facts: {
  readonly runId: string;
  readonly status: string;
  readonly turn: PendingTurn | null;
  readonly ownerId: number;
  readonly configurationId: number;
  readonly calls: readonly CallFact[];
  readonly approvers: readonly ApproverFact[];
  readonly approversTruncated: boolean;
  readonly link: string | null;
}): Record<string, unknown> {
  return {
    runId: facts.runId,
    status: facts.status,
    kind: facts.turn?.kind ?? null,
    turn: facts.turn?.turn ?? null,
    ownerId: String(facts.ownerId),
    configurationId: String(facts.configurationId),
    calls: {
      count: facts.calls.length,
      writes: facts.calls.filter((c) => c.writes).length,
      items: facts.calls.map((c) => ({ toolName: c.toolName, writes: c.writes, preview: c.preview })),
    },
    approvers: facts.approvers.map((a) => ({
      id: String(a.id),
      username: a.username,
      displayName: a.displayName,
      mayApprove: a.mayApprove,
    })),
    approversTruncated: facts.approversTruncated,
    link: facts.link,
  };
}

/** `decision.recorded`: someone approved, denied or answered a waiting run. */
export function decisionRecordedData(
  d: Pick<
    DecisionView,
    'id' | 'runId' | 'turn' | 'kind' | 'decidedBy' | 'denialReason' | 'path' | 'decidedAt'
  >,
): Record<string, unknown> {
  return {
    runId: d.runId,
    decisionId: d.id,
    turn: d.turn,
    kind: d.kind,
    denialReason: d.denialReason,
    decidedBy: d.decidedBy === null ? null : String(d.decidedBy),
    path: d.path,
    decidedAt: new Date(d.decidedAt).toISOString(),
  };
}

/** `run.expired`: the approval deadline of a run's turn passed without a decision. */
export function runExpiredData(
  d: Pick<DecisionView, 'id' | 'runId' | 'turn' | 'path' | 'decidedAt'>,
): Record<string, unknown> {
  return {
    runId: d.runId,
    decisionId: d.id,
    turn: d.turn,
    path: d.path,
    expiredAt: new Date(d.decidedAt).toISOString(),
  };
}

/** `run.settled`: a run finished (completed, failed or cancelled); never its answer. */
export function runSettledData(run: {
  readonly runId: string;
  readonly status: string;
  readonly terminationReason: string | null;
  readonly ownerId: number;
  readonly stepCount: number;
  readonly link: string | null;
}): Record<string, unknown> {
  return {
    runId: run.runId,
    status: run.status,
    terminationReason: run.terminationReason,
    ownerId: String(run.ownerId),
    stepCount: run.stepCount,
    link: run.link,
  };
}

/** Where the reference client shows a run: its inbox, told which run (null without PUBLIC_CLIENT_URL). */
export function runLink(publicClientUrl: string | null, runId: string): string | null {
  if (!publicClientUrl) return null;
  return new URL(`/app/?run=${encodeURIComponent(runId)}`, publicClientUrl).toString();
}
