import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateRunsAndSteps1796012796249 implements MigrationInterface {
  name = 'CreateRunsAndSteps1796012796249';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "run" ("id" uuid NOT NULL, "configuration_id" integer NOT NULL, "owner_id" integer NOT NULL, "workspace_id" integer NOT NULL DEFAULT '0', "subject_page_id" integer, "subject_language_id" integer, "max_iterations" integer NOT NULL, "status" character varying(32) NOT NULL, "termination_reason" character varying(32), "truncated" boolean NOT NULL DEFAULT false, "iterations" integer NOT NULL DEFAULT '0', "prompt_tokens" integer NOT NULL DEFAULT '0', "completion_tokens" integer NOT NULL DEFAULT '0', "step_count" integer NOT NULL DEFAULT '0', "checkpoint" text, "turn" integer NOT NULL DEFAULT '0', "turn_digest" character(64), "waiting_since" TIMESTAMP WITH TIME ZONE, "claimed_by" character varying(200), "lease_token" uuid, "lease_expires_at" TIMESTAMP WITH TIME ZONE, "pending_effect" jsonb, "requeue_count" integer NOT NULL DEFAULT '0', "predecessor_run_id" uuid, "skill_invocation" jsonb, "process_pin" jsonb, "dropped_process" jsonb, "had_decision" boolean NOT NULL DEFAULT false, "answer" text, "error_message" character varying(500), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_804c38ffba92002c6d2c646dd46" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "run_lease_expires_idx" ON "run"  ("lease_expires_at") `);
    await queryRunner.query(`CREATE INDEX "run_owner_created_idx" ON "run"  ("owner_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "run_status_idx" ON "run"  ("status") `);
    await queryRunner.query(`CREATE TABLE "run_step" ("run_id" uuid NOT NULL, "sequence" integer NOT NULL, "kind" character varying(16) NOT NULL, "round" integer NOT NULL, "duration_ms" integer NOT NULL DEFAULT '0', "payload" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_74bfbcdd113b1fdc8702869f002" PRIMARY KEY ("run_id", "sequence"))`);
    await queryRunner.query(`ALTER TABLE "run" ADD CONSTRAINT "FK_7a40efcaf09c44239d988eed1a9" FOREIGN KEY ("configuration_id") REFERENCES "configuration"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "run" ADD CONSTRAINT "FK_18fc084e551a414e28e1e3ac5db" FOREIGN KEY ("owner_id") REFERENCES "app_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "run_step" ADD CONSTRAINT "FK_559d5b6abf35bb83a02e34d7c13" FOREIGN KEY ("run_id") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "run_step" DROP CONSTRAINT "FK_559d5b6abf35bb83a02e34d7c13"`);
    await queryRunner.query(`ALTER TABLE "run" DROP CONSTRAINT "FK_18fc084e551a414e28e1e3ac5db"`);
    await queryRunner.query(`ALTER TABLE "run" DROP CONSTRAINT "FK_7a40efcaf09c44239d988eed1a9"`);
    await queryRunner.query(`DROP TABLE "run_step"`);
    await queryRunner.query(`DROP INDEX "public"."run_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."run_owner_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."run_lease_expires_idx"`);
    await queryRunner.query(`DROP TABLE "run"`);
  }
}
