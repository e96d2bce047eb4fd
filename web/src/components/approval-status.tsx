import { useEffect, useState } from 'react';
import type { PendingTurn } from '../api/types';

type Status = Pick<PendingTurn, 'expiresAt' | 'approvalsRequired' | 'approvals'>;

/** "3 min 20 s left" until `expiresAt` (or "deadline passed"), from the browser's clock. */
export function countdownText(expiresAt: string, now: number): string {
  const left = Math.ceil((new Date(expiresAt).getTime() - now) / 1000);
  if (left <= 0) return 'deadline passed';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  if (h > 0) return `${h} h ${m} min left`;
  return m > 0 ? `${m} min ${s} s left` : `${s} s left`;
}

/**
 * A waiting turn's deadline as a countdown and its quorum as "1 of 2 approvals" (with who
 * approved); nothing for a turn with neither. The server decides the deadline; this only shows it.
 */
export function ApprovalStatus({ pending }: { pending: Status }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!pending.expiresAt) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [pending.expiresAt]);
  const quorum = pending.approvalsRequired > 1;
  if (!pending.expiresAt && !quorum) return null;
  const names = pending.approvals.map((a) => a.decidedBy?.displayName ?? '?').join(', ');
  return (
    <p className="meta approval-status">
      {quorum && (
        <span data-testid="quorum">
          {pending.approvals.length} of {pending.approvalsRequired} approvals
          {names && <> ({names})</>}
        </span>
      )}
      {quorum && pending.expiresAt && ' · '}
      {pending.expiresAt && (
        <time
          data-testid="countdown"
          dateTime={pending.expiresAt}
          title={new Date(pending.expiresAt).toLocaleString()}
        >
          {countdownText(pending.expiresAt, now)}
        </time>
      )}
    </p>
  );
}
