import { MigrationInterface, QueryRunner } from 'typeorm';

export class VersionSkills1796146572698 implements MigrationInterface {
  name = 'VersionSkills1796146572698';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "skill_version" ("id" SERIAL NOT NULL, "skill_id" integer NOT NULL, "version" integer NOT NULL, "name" character varying(200) NOT NULL, "description" text NOT NULL DEFAULT '', "body" text NOT NULL, "is_process" boolean NOT NULL DEFAULT false, "state" character varying(16) NOT NULL DEFAULT 'DRAFT', "author_id" integer, "approved_by" integer, "approved_at" TIMESTAMP WITH TIME ZONE, "withdrawn_by" integer, "withdrawn_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_05167d59ac7599128e22400172d" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "skill_version_number_uq" ON "skill_version"  ("skill_id", "version") `);
    await queryRunner.query(`ALTER TABLE "skill_version" ADD CONSTRAINT "FK_cc60ddfa05199614c5f207609d0" FOREIGN KEY ("skill_id") REFERENCES "skill"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    // why: every skill that exists was in use unreviewed; it becomes an approved version 1 (no
    // author, no approver: nobody wrote or approved it as a version), so chats keep working.
    await queryRunner.query(`INSERT INTO "skill_version" ("skill_id", "version", "name", "description", "body", "is_process", "state", "approved_at")
      SELECT "id", 1, "name", "description", "body", "is_process", 'APPROVED', now() FROM "skill"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_version" DROP CONSTRAINT "FK_cc60ddfa05199614c5f207609d0"`);
    await queryRunner.query(`DROP INDEX "public"."skill_version_number_uq"`);
    await queryRunner.query(`DROP TABLE "skill_version"`);
  }
}
