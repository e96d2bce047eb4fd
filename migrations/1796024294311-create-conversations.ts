import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateConversations1796024294311 implements MigrationInterface {
  name = 'CreateConversations1796024294311';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "conversation" ("id" uuid NOT NULL, "owner_id" integer NOT NULL, "title" character varying(200) NOT NULL, "status" character varying(20) NOT NULL DEFAULT 'IDLE', "view_page_id" integer, "view_language_id" integer, "view_module" character varying(100), "skill_identifier" character varying(100), "skill_id" integer, "skill_is_process" boolean NOT NULL DEFAULT false, "skill_start_pending" boolean NOT NULL DEFAULT false, "last_run_id" uuid, "active_run_id" uuid, "deciding" boolean NOT NULL DEFAULT false, "archived_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_864528ec4274360a40f66c29845" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "conversation_active_run_idx" ON "conversation"  ("active_run_id") WHERE "active_run_id" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "conversation_owner_idx" ON "conversation"  ("owner_id", "updated_at") `);
    await queryRunner.query(`CREATE TABLE "conversation_message" ("id" BIGSERIAL NOT NULL, "conversation_id" uuid NOT NULL, "role" character varying(10) NOT NULL, "text" text NOT NULL, "notice" character varying(50), "notice_args" jsonb, "run_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2f8286c3560b52dba8428ac182e" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "conversation_message_conversation_idx" ON "conversation_message"  ("conversation_id", "id") `);
    await queryRunner.query(`ALTER TABLE "conversation" ADD CONSTRAINT "FK_2caa27b19e25d1ed03ceba6cb6f" FOREIGN KEY ("owner_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "conversation_message" ADD CONSTRAINT "FK_fde1a45d37dfea0608d6f6166a7" FOREIGN KEY ("conversation_id") REFERENCES "conversation"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_message" DROP CONSTRAINT "FK_fde1a45d37dfea0608d6f6166a7"`);
    await queryRunner.query(`ALTER TABLE "conversation" DROP CONSTRAINT "FK_2caa27b19e25d1ed03ceba6cb6f"`);
    await queryRunner.query(`DROP INDEX "public"."conversation_message_conversation_idx"`);
    await queryRunner.query(`DROP TABLE "conversation_message"`);
    await queryRunner.query(`DROP INDEX "public"."conversation_owner_idx"`);
    await queryRunner.query(`DROP INDEX "public"."conversation_active_run_idx"`);
    await queryRunner.query(`DROP TABLE "conversation"`);
  }
}
