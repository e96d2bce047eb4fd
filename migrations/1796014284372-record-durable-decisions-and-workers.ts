import { MigrationInterface, QueryRunner } from 'typeorm';

export class RecordDurableDecisionsAndWorkers1796014284372 implements MigrationInterface {
  name = 'RecordDurableDecisionsAndWorkers1796014284372';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "worker_heartbeat" ("worker_id" character varying(64) NOT NULL, "name" character varying(200) NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_seen" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_57142a5b912c5001ff15f617a54" PRIMARY KEY ("worker_id"))`);
    await queryRunner.query(`ALTER TABLE "run" ADD "hand_back" jsonb`);
    await queryRunner.query(`ALTER TABLE "run" ADD "recorded_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "decision" ADD "handed_back_code" character varying(40)`);
    // A handed-back decision no longer holds its turn: a later decision may take it.
    await queryRunner.query(`DROP INDEX "public"."decision_run_turn_uq"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "decision_run_turn_uq" ON "decision" ("run_id", "turn") WHERE "handed_back_code" IS NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."decision_run_turn_uq"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "decision_run_turn_uq" ON "decision" ("run_id", "turn")`);
    await queryRunner.query(`ALTER TABLE "decision" DROP COLUMN "handed_back_code"`);
    await queryRunner.query(`ALTER TABLE "run" DROP COLUMN "recorded_at"`);
    await queryRunner.query(`ALTER TABLE "run" DROP COLUMN "hand_back"`);
    await queryRunner.query(`DROP TABLE "worker_heartbeat"`);
  }
}
