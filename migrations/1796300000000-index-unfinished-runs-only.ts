import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildIndex, concurrently } from './support/online-index';

/**
 * The runs by status, over the unfinished runs only: the reaper, the worker's gauges and the
 * status counts read nothing else, and the finished runs are nearly all of the table. why: a run
 * that finishes no longer adds an entry to an index nobody reads by its finished statuses, one
 * index write less per settle (bench/README.md, "Issue 13, twenty-fifth round"), and the index
 * stays the size of the live work instead of the size of the history.
 * Built CONCURRENTLY before the full index is dropped, so the reaper always has one.
 */
export class IndexUnfinishedRunsOnly1796300000000 implements MigrationInterface {
  name = 'IndexUnfinishedRunsOnly1796300000000';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await buildIndex(
      queryRunner,
      'run_unfinished_idx',
      `ON "run" ("status") WHERE status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')`,
    );
    await queryRunner.query(`DROP INDEX ${concurrently(queryRunner)} IF EXISTS "run_status_idx"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await buildIndex(queryRunner, 'run_status_idx', `ON "run" ("status")`);
    await queryRunner.query(`DROP INDEX ${concurrently(queryRunner)} IF EXISTS "run_unfinished_idx"`);
  }
}
