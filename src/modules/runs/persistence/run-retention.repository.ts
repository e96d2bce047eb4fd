import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { returnedRows } from '../../../platform/database/query-results';

/**
 * The retention sweep's two statements. Each takes one small batch of finished runs (their
 * rows locked with SKIP LOCKED, so two sweeping instances share the work and never wait on
 * each other), oldest finish first through the partial indexes `run_steps_kept_idx` and
 * `run_finished_idx`, and ends with its own commit: no lock is held longer than one batch.
 * Only COMPLETED, FAILED and CANCELLED runs qualify, so waiting and running runs and their
 * decision records are never touched. The status predicate is literal: it must match the
 * partial indexes' own.
 */
@Injectable()
export class RunRetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Deletes the steps of up to `runs` runs finished before the cutoff and marks them; runs
   * older than `runsDueSeconds` (due for deletion as a whole) are left to `removeRuns`.
   */
  async removeSteps(
    olderThanSeconds: number,
    runs: number,
    runsDueSeconds: number | null,
  ): Promise<{ runs: number; steps: number }> {
    const result: unknown = await managerOf(this.dataSource).query(
      `WITH batch AS MATERIALIZED (
         SELECT id FROM run
          WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED') AND steps_removed_at IS NULL
            AND finished_at < now() - make_interval(secs => $1)
            AND ($3::int IS NULL OR finished_at >= now() - make_interval(secs => $3::int))
          ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED),
       gone AS (DELETE FROM run_step s USING batch b WHERE s.run_id = b.id RETURNING 1),
       marked AS (UPDATE run r SET steps_removed_at = now() FROM batch b WHERE r.id = b.id RETURNING 1)
       SELECT (SELECT count(*) FROM marked)::int AS runs, (SELECT count(*) FROM gone)::int AS steps`,
      [olderThanSeconds, runs, runsDueSeconds],
    );
    const [row] = returnedRows<{ runs: number; steps: number }>(result);
    return { runs: row?.runs ?? 0, steps: row?.steps ?? 0 };
  }

  /**
   * Deletes up to `runs` runs finished before the cutoff; their steps and decision records go
   * with them (ON DELETE CASCADE). Returns how many runs and steps went.
   */
  async removeRuns(olderThanSeconds: number, runs: number): Promise<{ runs: number; steps: number }> {
    const result: unknown = await managerOf(this.dataSource).query(
      `WITH batch AS MATERIALIZED (
         SELECT id FROM run
          WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED')
            AND finished_at < now() - make_interval(secs => $1)
          ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED),
       steps AS (SELECT count(*)::int AS n FROM run_step s JOIN batch b ON s.run_id = b.id),
       gone AS (DELETE FROM run r USING batch b WHERE r.id = b.id RETURNING 1)
       SELECT (SELECT count(*) FROM gone)::int AS runs, (SELECT n FROM steps) AS steps`,
      [olderThanSeconds, runs],
    );
    const [row] = returnedRows<{ runs: number; steps: number }>(result);
    return { runs: row?.runs ?? 0, steps: row?.steps ?? 0 };
  }
}
