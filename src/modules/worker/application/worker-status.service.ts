import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/app-config';
import { RequestContext } from '../../../platform/auth/request-context';
import { forbidden } from '../../../common/refusal';
import type { RunCensus } from '../../../platform/metrics/metrics';
import { UNFINISHED_STATUSES, WAITING_STATUSES, WorkerPresence } from '../../runs';
import { healthProblems, WorkerFigures } from '../core/worker-health';
import { WorkBacklogRepository } from '../persistence/work-backlog.repository';

/** The worker figures with the verdict and, when unhealthy, why. */
export interface WorkerStatus extends WorkerFigures {
  readonly healthy: boolean;
  readonly problems: readonly string[];
}

/**
 * How the workers are doing, from the database (so any instance, or the CLI, sees the same):
 * live workers, queued runs, recorded decisions, expired leases, the oldest wait, and whether
 * that is healthy (core/worker-health).
 */
@Injectable()
export class WorkerStatusService {
  constructor(
    private readonly presence: WorkerPresence,
    private readonly backlog: WorkBacklogRepository,
  ) {}

  /** The service over a data source of its own, outside the Nest container (the CLI). */
  static over(dataSource: DataSource, config: Pick<AppConfig, 'workerLivenessSeconds'>): WorkerStatusService {
    return new WorkerStatusService(
      WorkerPresence.over(dataSource, config),
      new WorkBacklogRepository(dataSource),
    );
  }

  /** `workerStatus`: admins only (FORBIDDEN otherwise). */
  async status(ctx: RequestContext): Promise<WorkerStatus> {
    if (!ctx.isAdmin) throw forbidden('Only admins may see the worker status');
    return this.read();
  }

  /** What `/metrics` reads at each scrape: unfinished runs by status, the oldest wait, live workers. */
  async census(): Promise<RunCensus> {
    const runs = await this.backlog.unfinishedRuns();
    const count = (status: string) => runs.byStatus[status] ?? 0;
    return {
      unfinishedByStatus: Object.fromEntries(UNFINISHED_STATUSES.map((s) => [s, count(s)])),
      waiting: WAITING_STATUSES.reduce((sum, s) => sum + count(s), 0),
      decisionsRecorded: count('DECISION_RECORDED'),
      oldestWaitingSeconds: runs.oldestWaitingSeconds,
      liveWorkers: await this.presence.liveWorkers(),
    };
  }

  /** The figures and the verdict, for the API and the CLI alike; no access check. */
  async read(): Promise<WorkerStatus> {
    const liveWorkers = await this.presence.liveWorkers();
    const figures: WorkerFigures = { liveWorkers, ...(await this.backlog.backlog()) };
    const problems = healthProblems(figures);
    return { ...figures, healthy: problems.length === 0, problems };
  }
}
