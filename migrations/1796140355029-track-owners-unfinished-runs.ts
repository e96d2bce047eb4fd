import { MigrationInterface, QueryRunner } from 'typeorm';

export class TrackOwnersUnfinishedRuns1796140355029 implements MigrationInterface {
  name = 'TrackOwnersUnfinishedRuns1796140355029';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "run_owner_unfinished_idx" ON "run"  ("owner_id") WHERE status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."run_owner_unfinished_idx"`);
  }
}
