import { MigrationInterface, QueryRunner } from 'typeorm';

export class RecordDecisions1796013122794 implements MigrationInterface {
  name = 'RecordDecisions1796013122794';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "decision" ("id" uuid NOT NULL, "run_id" uuid NOT NULL, "turn" integer NOT NULL, "kind" character varying(16) NOT NULL, "decided_by" integer NOT NULL, "denial_reason" character varying(16), "turn_digest" character(64) NOT NULL, "path" character varying(16) NOT NULL, "idempotency_key" character varying(200), "fingerprint" character(64) NOT NULL, "decided_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "outcome" character varying(32), "settled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_fa4cbd6abf1215054f13c27df5a" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "decision_idempotency_uq" ON "decision"  ("run_id", "decided_by", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "decision_run_turn_uq" ON "decision"  ("run_id", "turn") `);
    await queryRunner.query(`ALTER TABLE "decision" ADD CONSTRAINT "FK_9605c0e08cbe2d780f4e5215566" FOREIGN KEY ("run_id") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "decision" ADD CONSTRAINT "FK_151703d1ced04c295203a731365" FOREIGN KEY ("decided_by") REFERENCES "app_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "decision" DROP CONSTRAINT "FK_151703d1ced04c295203a731365"`);
    await queryRunner.query(`ALTER TABLE "decision" DROP CONSTRAINT "FK_9605c0e08cbe2d780f4e5215566"`);
    await queryRunner.query(`DROP INDEX "public"."decision_run_turn_uq"`);
    await queryRunner.query(`DROP INDEX "public"."decision_idempotency_uq"`);
    await queryRunner.query(`DROP TABLE "decision"`);
  }
}
