import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildIndex, concurrently } from './support/online-index';

const WAITING = `status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT')`;
const FINISHED = `status IN ('COMPLETED', 'FAILED', 'CANCELLED')`;

/**
 * Indexes in each list's sort order (keyset pages, docs/pagination.md), and the retention
 * sweep's column and indexes. Built CONCURRENTLY, so outside a transaction: writes to `run` go on while they build.
 * A build that fails leaves an invalid index behind, so each one is dropped first: running
 * the migration again after a failure rebuilds it.
 */
export class IndexTheLists1796146656078 implements MigrationInterface {
  name = 'IndexTheLists1796146656078';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    const c = concurrently(queryRunner);
    const build = (name: string, definition: string) => buildIndex(queryRunner, name, `ON "run" ${definition}`);
    await build('run_created_idx', `("created_at", "id")`);
    await build('run_waiting_idx', `("waiting_since", "id") WHERE ${WAITING}`);
    await build('run_owner_waiting_idx', `("owner_id", "waiting_since", "id") WHERE ${WAITING}`);
    await build('run_finished_idx', `("finished_at") WHERE ${FINISHED}`);
    await queryRunner.query(`ALTER TABLE "run" ADD COLUMN IF NOT EXISTS "steps_removed_at" TIMESTAMP WITH TIME ZONE`);
    await build('run_steps_kept_idx', `("finished_at") WHERE ${FINISHED} AND steps_removed_at IS NULL`);
    // The owner's list gains the id (its tie-breaker): built beside the old one, then swapped.
    await build('run_owner_created_next_idx', `("owner_id", "created_at", "id")`);
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "run_owner_created_idx"`);
    await queryRunner.query(`ALTER INDEX "run_owner_created_next_idx" RENAME TO "run_owner_created_idx"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    const c = concurrently(queryRunner);
    await queryRunner.query(`CREATE INDEX ${c} "run_owner_created_prev_idx" ON "run" ("owner_id", "created_at")`);
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "run_owner_created_idx"`);
    await queryRunner.query(`ALTER INDEX "run_owner_created_prev_idx" RENAME TO "run_owner_created_idx"`);
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "run_steps_kept_idx"`);
    await queryRunner.query(`ALTER TABLE "run" DROP COLUMN "steps_removed_at"`);
    for (const name of ['run_finished_idx', 'run_owner_waiting_idx', 'run_waiting_idx', 'run_created_idx']) {
      await queryRunner.query(`DROP INDEX ${c} IF EXISTS "${name}"`);
    }
  }
}
