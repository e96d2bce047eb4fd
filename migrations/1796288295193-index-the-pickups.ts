import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildIndex, concurrently } from './support/online-index';

/**
 * Indexes in the order the worker's pickups claim: recorded decisions by `recorded_at`, queued
 * runs by `created_at`, each only over the runs of that status. Before them a pickup read every
 * run of the status through `run_status_idx` and sorted them, on every pass (2.8 ms a pass with a
 * backlog of a few hundred recorded decisions; bench/README.md, "Issue 13, eleventh round").
 * Built CONCURRENTLY, each dropped first so a run after a failed build rebuilds it.
 */
export class IndexThePickups1796288295193 implements MigrationInterface {
  name = 'IndexThePickups1796288295193';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await buildIndex(queryRunner, 'run_queued_idx', `ON "run" ("created_at", "id") WHERE status = 'QUEUED'`);
    await buildIndex(queryRunner, 'run_recorded_idx', `ON "run" ("recorded_at", "id") WHERE status = 'DECISION_RECORDED'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    const c = concurrently(queryRunner);
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "run_recorded_idx"`);
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "run_queued_idx"`);
  }
}
