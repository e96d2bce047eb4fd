import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { WorkerHeartbeatRepository } from '../persistence/worker-heartbeat.repository';

/**
 * Who can carry durable work: the `worker_heartbeat` rows of the running worker processes
 * (docs/decisions.md, "Workers and their heartbeat"). The worker module writes its row through
 * this service; where a run or a decision goes (choosePath) depends on how many are live. why
 * here: the path choice is the runs module's, and one module owns the table and its one
 * liveness query.
 */
@Injectable()
export class WorkerPresence {
  constructor(
    private readonly repository: WorkerHeartbeatRepository,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'workerLivenessSeconds'>,
  ) {}

  /** The service over a data source of its own, outside the Nest container (the CLI). */
  static over(dataSource: DataSource, config: Pick<AppConfig, 'workerLivenessSeconds'>): WorkerPresence {
    return new WorkerPresence(new WorkerHeartbeatRepository(dataSource), config);
  }

  /** How many workers are live now: heartbeat within WORKER_LIVENESS_SECONDS. */
  liveWorkers(): Promise<number> {
    return this.repository.countLive(this.config.workerLivenessSeconds);
  }

  /** Writes the worker's row, or refreshes its `last_seen`. */
  beat(workerId: string, name: string): Promise<void> {
    return this.repository.beat(workerId, name);
  }

  /** Deletes the worker's row (a graceful stop); true when there was one. */
  remove(workerId: string): Promise<boolean> {
    return this.repository.remove(workerId);
  }

  /** Deletes rows left by processes that died long ago (never the live ones); how many. */
  pruneOlderThan(seconds: number): Promise<number> {
    return this.repository.pruneOlderThan(seconds);
  }
}
