import { useCallback, useId } from 'react';
import { ApiError, type Api } from '../api/graphql';
import { APPROVE_RUN, DENY_RUN, RUN_HAND_BACK, SUBMIT_RUN_INPUT } from '../api/operations';
import type { ApproveRunMutation, RunHandBackQuery } from '../api/generated';
import { refusalMessage } from '../api/refusals';
import type { InboxItem, RunProgressEvent, RunStatus } from '../api/types';
import { DecisionPanel } from '../components/decision-panel';
import { ApprovalStatus } from '../components/approval-status';
import { PendingCalls } from '../components/pending-calls';
import type { Decide, DecisionAction } from '../components/use-decision';
import { toneOf, whatOf, type Outcome } from './outcome';

interface Props {
  api: Api;
  item: InboxItem;
  onDecide: (item: InboxItem) => void;
  onRefused: (item: InboxItem, code: string) => void;
  onSettled: (item: InboxItem, outcome: Outcome) => void;
}

const WAITING: ReadonlySet<RunStatus> = new Set(['WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT']);

/** One waiting run: who started it, what it proposes, and the decision. */
export function InboxCard({ api, item, onDecide, onRefused, onSettled }: Props) {
  const headingId = useId();
  const { run } = item;
  const pending = run.pending;
  const what = whatOf(item);

  const decide: Decide = useCallback(
    async (action, idempotencyKey) => {
      if (!pending) return;
      onDecide(item);
      const base = { runId: run.id, turnDigest: pending.turnDigest, idempotencyKey };
      try {
        const data = await api.request<Partial<ApproveRunMutation>>(...decisionRequest(action, base));
        // why: on a quorum an approval is a vote; the run keeps waiting for the other approvers.
        if (data.approveRun?.run.status === 'WAITING_FOR_APPROVAL') return 'counted';
      } catch (e) {
        onRefused(item, e instanceof ApiError ? e.code : 'NETWORK');
        throw e;
      }
    },
    [api, item, onDecide, onRefused, pending, run.id],
  );

  const settled = useCallback(
    (event: RunProgressEvent, action: DecisionAction) => {
      void (async () => {
        const turn = pending?.turn ?? 0;
        const waiting = WAITING.has(event.status);
        let handBackCode: string | null = null;
        if (waiting && event.turn <= turn) {
          const data = await api.request<RunHandBackQuery>(RUN_HAND_BACK, { id: run.id }).catch(() => null);
          handBackCode = data?.run?.handBack?.code ?? 'RUN_NOT_WAITING';
        }
        onSettled(item, {
          key: `${run.id}:${turn}:${Date.now()}`,
          runId: run.id,
          what,
          action: action.kind,
          status: event.status,
          stepCount: event.stepCount,
          handBackCode,
          refusedCode: null,
          newTurn: waiting && event.turn > turn,
          tone: handBackCode ? 'failed' : toneOf(event.status),
        });
      })();
    },
    [api, item, onSettled, pending, run.id, what],
  );

  return (
    <article className="card" aria-labelledby={headingId} data-run-id={run.id}>
      <h2 id={headingId}>{what}</h2>
      <p className="meta">
        {pending?.kind === 'INPUT' ? 'Waits for an answer' : 'Waits for approval'}
        {pending && <> since {new Date(pending.waitingSince).toLocaleString()}</>} · turn{' '}
        {pending?.turn ?? '–'} · {run.stepCount} steps · run <code>{run.id.slice(0, 8)}</code>
      </p>
      {!item.detailVisible && (
        <p className="hint">You may decide this run but not read its details, so arguments are hidden.</p>
      )}
      {pending && <ApprovalStatus pending={pending} />}
      {pending && <PendingCalls pending={pending} />}
      {!item.decidableHere ? (
        <p className="notice">{refusalMessage('PROCESS_RUN_DECIDED_IN_CHAT')}</p>
      ) : (
        pending && (
          <DecisionPanel
            api={api}
            runId={run.id}
            pending={pending}
            mayApprove={item.mayApprove}
            approveRefusal={item.approveRefusal}
            decide={decide}
            onSettled={settled}
          />
        )
      )}
    </article>
  );
}

function decisionRequest(
  action: DecisionAction,
  base: { runId: string; turnDigest: string; idempotencyKey: string },
): [string, Record<string, unknown>] {
  switch (action.kind) {
    case 'approve':
      return [APPROVE_RUN, { input: base }];
    case 'deny':
      return [DENY_RUN, { input: { ...base, reason: action.reason } }];
    case 'input':
      return [SUBMIT_RUN_INPUT, { input: { ...base, values: action.values } }];
  }
}
