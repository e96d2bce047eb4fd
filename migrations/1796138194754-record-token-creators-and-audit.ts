import { MigrationInterface, QueryRunner } from 'typeorm';

export class RecordTokenCreatorsAndAudit1796138194754 implements MigrationInterface {
  name = 'RecordTokenCreatorsAndAudit1796138194754';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "audit_event" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "via" character varying(8) NOT NULL, "actor_user_id" integer, "actor_username" character varying(64), "actor_token_id" uuid, "action" character varying(32) NOT NULL, "subject_user_id" integer, "details" jsonb NOT NULL DEFAULT '{}', CONSTRAINT "PK_481efbe8b0a403efe3f47a6528f" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_48ad6ca4c43a11eaef77a28734" ON "audit_event"  ("subject_user_id", "at") `);
    await queryRunner.query(`CREATE INDEX "IDX_06d570d7d1b40fbc994b5955be" ON "audit_event"  ("at") `);
    await queryRunner.query(`ALTER TABLE "api_token" ADD "created_by" integer`);
    await queryRunner.query(`ALTER TABLE "api_token" ADD CONSTRAINT "FK_d291af9bf080ecd5ce9f429c415" FOREIGN KEY ("created_by") REFERENCES "app_user"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_token" DROP CONSTRAINT "FK_d291af9bf080ecd5ce9f429c415"`);
    await queryRunner.query(`ALTER TABLE "api_token" DROP COLUMN "created_by"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_06d570d7d1b40fbc994b5955be"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_48ad6ca4c43a11eaef77a28734"`);
    await queryRunner.query(`DROP TABLE "audit_event"`);
  }
}
