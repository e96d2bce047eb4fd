/** The figures `workerStatus` and `npm run cli -- status` report. */
export interface WorkerFigures {
  /** Workers whose heartbeat is fresher than WORKER_LIVENESS_SECONDS. */
  readonly liveWorkers: number;
  /** Runs waiting QUEUED for a worker. */
  readonly queued: number;
  /** Runs whose decision was recorded (DECISION_RECORDED) and waits for a worker. */
  readonly decisionsRecorded: number;
  /** RUNNING runs whose lease expired: their process died and the reaper has not taken them yet. */
  readonly expiredLeases: number;
  /** How long the oldest QUEUED or DECISION_RECORDED run has waited; null when none waits. */
  readonly oldestWaitSeconds: number | null;
}

/** A wait at or above this many seconds counts as unhealthy. */
export const MAX_HEALTHY_WAIT_SECONDS = 300;

/**
 * What makes the workers unhealthy, one sentence each (empty when healthy): an expired lease
 * (a dead process's run nobody reaped), the oldest wait at or above MAX_HEALTHY_WAIT_SECONDS
 * (work that nobody takes), or no live worker (nothing would take new work). Design:
 * docs/decisions.md, "Workers and their heartbeat".
 */
export function healthProblems(f: WorkerFigures): string[] {
  const problems: string[] = [];
  if (f.liveWorkers < 1) problems.push('no live worker');
  if (f.expiredLeases > 0) problems.push(`${f.expiredLeases} run(s) with an expired lease`);
  if (f.oldestWaitSeconds !== null && f.oldestWaitSeconds >= MAX_HEALTHY_WAIT_SECONDS) {
    problems.push(`the oldest run has waited ${f.oldestWaitSeconds} s (limit ${MAX_HEALTHY_WAIT_SECONDS} s)`);
  }
  return problems;
}

/** Healthy: no expired lease, the oldest wait under 300 s and at least one live worker. */
export function isHealthy(f: WorkerFigures): boolean {
  return healthProblems(f).length === 0;
}
