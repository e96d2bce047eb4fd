import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { UNFINISHED_STATUSES } from '../../runs';
import type { WorkerFigures } from '../core/worker-health';

/**
 * The runs module's unfinished statuses as SQL literals. why literals, not a parameter: the
 * planner proves `status IN (<constants>)` implies `run_unfinished_idx`'s predicate and reads
 * that partial index; a parameter it cannot prove anything of.
 */
const UNFINISHED_LITERALS = UNFINISHED_STATUSES.map((s) => `'${s}'`).join(', ');

/** The work waiting for workers, as `workerStatus` reports it. */
export type WorkBacklog = Omit<WorkerFigures, 'liveWorkers'>;

/** Counts over `run` for the worker status; reads only. */
@Injectable()
export class WorkBacklogRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Queued runs, recorded decisions, RUNNING runs whose lease expired, and the oldest wait: a
   * QUEUED run waits since it was created (a requeued run thus counts from its creation, an
   * overstatement that lasts until a worker takes it), a recorded decision since `recorded_at`.
   */
  async backlog(): Promise<WorkBacklog> {
    const rows: Array<{
      queued: number;
      decisions_recorded: number;
      expired_leases: number;
      oldest_wait_seconds: number | null;
    }> = await managerOf(this.dataSource).query(
      `SELECT count(*) FILTER (WHERE status = 'QUEUED')::int AS queued,
              count(*) FILTER (WHERE status = 'DECISION_RECORDED')::int AS decisions_recorded,
              count(*) FILTER (WHERE status = 'RUNNING' AND lease_expires_at < now())::int AS expired_leases,
              floor(extract(epoch FROM now() - min(
                CASE status WHEN 'QUEUED' THEN created_at
                            WHEN 'DECISION_RECORDED' THEN coalesce(recorded_at, updated_at) END)))::int
                AS oldest_wait_seconds
         FROM run
        WHERE status IN ('QUEUED', 'DECISION_RECORDED', 'RUNNING')`,
    );
    const row = rows[0];
    return {
      queued: row?.queued ?? 0,
      decisionsRecorded: row?.decisions_recorded ?? 0,
      expiredLeases: row?.expired_leases ?? 0,
      // why: GREATEST would turn "nothing waits" (NULL) into 0; a clock a hair ahead of a
      // fresh row's timestamp is clamped here instead.
      oldestWaitSeconds: row?.oldest_wait_seconds == null ? null : Math.max(0, row.oldest_wait_seconds),
    };
  }

  /**
   * Runs not yet finished, by status, and how long the longest-waiting one (approval or input)
   * has waited: one pass over the unfinished runs only (`run_unfinished_idx`), however many
   * finished runs the table holds.
   */
  async unfinishedRuns(): Promise<{ byStatus: Record<string, number>; oldestWaitingSeconds: number | null }> {
    const rows: Array<{ status: string; n: number; oldest: number | null }> = await managerOf(
      this.dataSource,
    ).query(
      `SELECT status, count(*)::int AS n,
              floor(extract(epoch FROM now() - min(waiting_since)))::int AS oldest
         FROM run
        WHERE status IN (${UNFINISHED_LITERALS})
        GROUP BY status`,
    );
    const byStatus: Record<string, number> = {};
    let oldest: number | null = null;
    for (const r of rows) {
      byStatus[r.status] = r.n;
      if (r.status.startsWith('WAITING_') && r.oldest !== null) oldest = Math.max(oldest ?? 0, r.oldest, 0);
    }
    return { byStatus, oldestWaitingSeconds: oldest };
  }
}
