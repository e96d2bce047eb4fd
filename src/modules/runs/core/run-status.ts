/** The states of a run (docs/run-lifecycle.md). */
export const RUN_STATUSES = [
  'QUEUED',
  'RUNNING',
  'WAITING_FOR_APPROVAL',
  'WAITING_FOR_INPUT',
  'DECISION_RECORDED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_STATUSES: readonly RunStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];
export const WAITING_STATUSES: readonly RunStatus[] = ['WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT'];
/** Every status of a run that has not finished, in {@link RUN_STATUSES} order. */
export const UNFINISHED_STATUSES: readonly RunStatus[] = RUN_STATUSES.filter(
  (s) => !TERMINAL_STATUSES.includes(s),
);
/** States a cancel may leave from. */
export const CANCELLABLE_STATUSES: readonly RunStatus[] = ['QUEUED', 'RUNNING', ...WAITING_STATUSES];

export const TERMINATION_REASONS = [
  'COMPLETED',
  'MAX_ITERATIONS',
  'BUDGET_EXHAUSTED',
  'POLICY_DENIED',
  'APPROVAL_DENIED',
  'PROVIDER_FAILED',
  'CANCELLED',
  'RETRIES_EXHAUSTED',
  'NOT_RETRYABLE',
] as const;
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export function isWaiting(status: string): boolean {
  return (WAITING_STATUSES as readonly string[]).includes(status);
}

/** How many times the reaper requeues a run whose lease expired before failing it. */
export const MAX_REQUEUES = 3;
