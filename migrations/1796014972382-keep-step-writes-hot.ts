import { MigrationInterface, QueryRunner } from 'typeorm';

export class KeepStepWritesHot1796014972382 implements MigrationInterface {
  name = 'KeepStepWritesHot1796014972382';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."run_lease_expires_idx"`);
    // Room in each page for the new row versions of a running run (HOT updates).
    await queryRunner.query(`ALTER TABLE "run" SET (fillfactor = 80)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "run" RESET (fillfactor)`);
    await queryRunner.query(`CREATE INDEX "run_lease_expires_idx" ON "run" USING btree ("lease_expires_at") `);
  }
}
