import type { RunStatus } from '../api/types';

/** Where a decision's continuation is, from `runProgress` (counts only). */
export interface Progress {
  readonly stepCount: number;
  readonly status: RunStatus;
  readonly settled: boolean;
}

const STATUS_TEXT: Record<RunStatus, string> = {
  QUEUED: 'queued',
  RUNNING: 'running',
  WAITING_FOR_APPROVAL: 'waiting for an approval',
  WAITING_FOR_INPUT: 'waiting for an answer',
  DECISION_RECORDED: 'decision recorded, waiting for a worker',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/** A run status as words. */
export function statusText(status: RunStatus): string {
  return STATUS_TEXT[status];
}

/**
 * A progress bar for a continuation whose length nobody knows beforehand: it grows with every
 * recorded step (never reaching the end while the run moves) and fills once the run SETTLED.
 */
export function ProgressBar({ progress, label }: { progress: Progress; label: string }) {
  const { stepCount, status, settled } = progress;
  const fraction = settled ? 1 : 1 - 1 / (1 + stepCount / 6);
  const text = settled
    ? `Settled: ${statusText(status)} after ${stepCount} steps`
    : `Step ${stepCount}, ${statusText(status)}`;
  return (
    <div className="progress" data-settled={settled ? 'true' : 'false'}>
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuenow={stepCount}
        aria-valuetext={text}
      >
        <div className="progress-fill" style={{ width: `${Math.round(fraction * 100)}%` }} />
      </div>
      <span className="progress-text" aria-hidden="true">
        {text}
      </span>
    </div>
  );
}
