import { useCallback } from 'react';
import type { Api } from '../api/graphql';
import { DECIDE_CONVERSATION, SUBMIT_CONVERSATION_INPUT } from '../api/operations';
import type { PendingTurn } from '../api/types';
import { DecisionPanel } from '../components/decision-panel';
import { ApprovalStatus } from '../components/approval-status';
import { PendingCalls } from '../components/pending-calls';
import type { Decide } from '../components/use-decision';

/**
 * The decision card of a waiting conversation: what the turn proposes, and approve / deny or the
 * input form, decided through the conversation (process runs are decided only here), with the
 * continuation's progress from `runProgress`.
 */
export function DecisionCard({
  api,
  conversationId,
  runId,
  pending,
  onDecide,
  onRefused,
  onSettled,
}: {
  api: Api;
  conversationId: string;
  runId: string;
  pending: PendingTurn;
  onDecide: () => void;
  onRefused: (error: unknown) => void;
  onSettled: () => void;
}) {
  const decide: Decide = useCallback(
    async (action) => {
      onDecide();
      const base = { conversationId, turnDigest: pending.turnDigest };
      try {
        if (action.kind === 'input') {
          await api.request(SUBMIT_CONVERSATION_INPUT, { input: { ...base, values: action.values } });
        } else {
          const denialReason = action.kind === 'deny' ? action.reason : null;
          await api.request(DECIDE_CONVERSATION, {
            input: { ...base, approve: action.kind === 'approve', denialReason },
          });
        }
      } catch (e) {
        onRefused(e);
        throw e;
      }
    },
    [api, conversationId, onDecide, onRefused, pending.turnDigest],
  );
  return (
    <section className="card decision-card" aria-labelledby="decision-card-heading">
      <h2 id="decision-card-heading">
        {pending.kind === 'INPUT' ? 'The assistant asks' : 'The assistant proposes'}
      </h2>
      <ApprovalStatus pending={pending} />
      <PendingCalls pending={pending} />
      <DecisionPanel
        api={api}
        runId={runId}
        pending={pending}
        mayApprove
        decide={decide}
        onSettled={onSettled}
      />
    </section>
  );
}
