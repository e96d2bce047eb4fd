import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';

/** The rows of `worker_heartbeat`: one per running worker process. */
@Injectable()
export class WorkerHeartbeatRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Writes the worker's row, or refreshes its `last_seen` when it exists: one upsert, so a row
   * removed behind the worker's back (a cleanup, a restore) comes back at the next beat.
   */
  async beat(workerId: string, name: string): Promise<void> {
    await managerOf(this.dataSource).query(
      `INSERT INTO worker_heartbeat (worker_id, name, started_at, last_seen) VALUES ($1, $2, now(), now())
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
      [workerId, name],
    );
  }

  /** Workers whose heartbeat is fresher than `livenessSeconds`. */
  async countLive(livenessSeconds: number): Promise<number> {
    const rows: Array<{ n: number }> = await managerOf(this.dataSource).query(
      `SELECT count(*)::int AS n FROM worker_heartbeat WHERE last_seen > now() - make_interval(secs => $1)`,
      [livenessSeconds],
    );
    return rows[0]?.n ?? 0;
  }

  /** Deletes the worker's row (a graceful stop); true when there was one. */
  async remove(workerId: string): Promise<boolean> {
    const result: unknown = await managerOf(this.dataSource).query(
      'DELETE FROM worker_heartbeat WHERE worker_id = $1',
      [workerId],
    );
    return deleted(result) === 1;
  }

  /** Deletes rows left by processes that died long ago (never the live ones); how many. */
  async pruneOlderThan(seconds: number): Promise<number> {
    const result: unknown = await managerOf(this.dataSource).query(
      'DELETE FROM worker_heartbeat WHERE last_seen < now() - make_interval(secs => $1)',
      [seconds],
    );
    return deleted(result);
  }
}

/** TypeORM's postgres driver answers a DELETE as [rows, affected]. */
function deleted(result: unknown): number {
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
}
