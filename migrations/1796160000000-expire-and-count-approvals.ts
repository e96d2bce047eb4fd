import { MigrationInterface, QueryRunner } from 'typeorm';

/** Decision deadlines (run.expires_at, the configuration's timeout) and quorums (approval votes). */
export class ExpireAndCountApprovals1796160000000 implements MigrationInterface {
  name = 'ExpireAndCountApprovals1796160000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "approval_vote" ("id" uuid NOT NULL, "run_id" uuid NOT NULL, "turn" integer NOT NULL, "turn_digest" character(64) NOT NULL, "voter_id" integer NOT NULL, "path" character varying(16) NOT NULL, "idempotency_key" character varying(200), "fingerprint" character(64) NOT NULL, "voted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2f83b63082e71d2c81b1c9b8ac8" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "approval_vote_idempotency_uq" ON "approval_vote"  ("run_id", "voter_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "approval_vote_uq" ON "approval_vote"  ("run_id", "turn", "voter_id") `);
    await queryRunner.query(`ALTER TABLE "configuration" ADD "approval_timeout_seconds" integer`);
    await queryRunner.query(`ALTER TABLE "configuration" ADD "on_approval_timeout" character varying(8) NOT NULL DEFAULT 'DENY'`);
    await queryRunner.query(`ALTER TABLE "configuration" ADD "required_approvals" integer NOT NULL DEFAULT '1'`);
    await queryRunner.query(`ALTER TABLE "run" ADD "expires_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "decision" DROP CONSTRAINT "FK_151703d1ced04c295203a731365"`);
    await queryRunner.query(`DROP INDEX "public"."decision_idempotency_uq"`);
    await queryRunner.query(`ALTER TABLE "decision" ALTER COLUMN "decided_by" DROP NOT NULL`);
    await queryRunner.query(`CREATE INDEX "run_expiry_idx" ON "run"  ("expires_at") WHERE status = 'WAITING_FOR_APPROVAL' AND expires_at IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "decision_idempotency_uq" ON "decision"  ("run_id", "decided_by", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "decision" ADD CONSTRAINT "FK_151703d1ced04c295203a731365" FOREIGN KEY ("decided_by") REFERENCES "app_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "approval_vote" ADD CONSTRAINT "FK_43a2bbdf4dd7d8f12551d93fb36" FOREIGN KEY ("run_id") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "approval_vote" ADD CONSTRAINT "FK_800f24d1fdfdaa1140c0c5ce854" FOREIGN KEY ("voter_id") REFERENCES "app_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "approval_vote" DROP CONSTRAINT "FK_800f24d1fdfdaa1140c0c5ce854"`);
    await queryRunner.query(`ALTER TABLE "approval_vote" DROP CONSTRAINT "FK_43a2bbdf4dd7d8f12551d93fb36"`);
    await queryRunner.query(`ALTER TABLE "decision" DROP CONSTRAINT "FK_151703d1ced04c295203a731365"`);
    await queryRunner.query(`DROP INDEX "public"."decision_idempotency_uq"`);
    await queryRunner.query(`DROP INDEX "public"."run_expiry_idx"`);
    // why: the expiry's records have no decider; the older schema cannot hold them.
    await queryRunner.query(`DELETE FROM "decision" WHERE "decided_by" IS NULL`);
    await queryRunner.query(`ALTER TABLE "decision" ALTER COLUMN "decided_by" SET NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "decision_idempotency_uq" ON "decision" USING btree ("decided_by", "idempotency_key", "run_id") WHERE (idempotency_key IS NOT NULL)`);
    await queryRunner.query(`ALTER TABLE "decision" ADD CONSTRAINT "FK_151703d1ced04c295203a731365" FOREIGN KEY ("decided_by") REFERENCES "app_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "run" DROP COLUMN "expires_at"`);
    await queryRunner.query(`ALTER TABLE "configuration" DROP COLUMN "required_approvals"`);
    await queryRunner.query(`ALTER TABLE "configuration" DROP COLUMN "on_approval_timeout"`);
    await queryRunner.query(`ALTER TABLE "configuration" DROP COLUMN "approval_timeout_seconds"`);
    await queryRunner.query(`DROP INDEX "public"."approval_vote_uq"`);
    await queryRunner.query(`DROP INDEX "public"."approval_vote_idempotency_uq"`);
    await queryRunner.query(`DROP TABLE "approval_vote"`);
  }
}
