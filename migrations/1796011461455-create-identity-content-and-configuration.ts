import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdentityContentAndConfiguration1796011461455 implements MigrationInterface {
  name = 'CreateIdentityContentAndConfiguration1796011461455';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "access_group" ("id" SERIAL NOT NULL, "name" character varying(100) NOT NULL, "grants" text array NOT NULL DEFAULT '{}', "show_page_ids" integer array NOT NULL DEFAULT '{}', "edit_page_ids" integer array NOT NULL DEFAULT '{}', "edit_language_ids" integer array NOT NULL DEFAULT '{}', CONSTRAINT "UQ_3d05c6ff00e8b5ba22a7c1d19be" UNIQUE ("name"), CONSTRAINT "PK_6a36f88265e6c07bd59939df05c" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "app_user" ("id" SERIAL NOT NULL, "username" character varying(64) NOT NULL, "display_name" character varying(200) NOT NULL, "locale" character varying(16) NOT NULL DEFAULT 'en', "is_admin" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_c480e576dd71729addbc2d51b67" UNIQUE ("username"), CONSTRAINT "PK_22a5c4a3d9b2fb8e4e73fc4ada1" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "api_token" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" integer NOT NULL, "token_hash" character(64) NOT NULL, "label" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_bafaa5aab5957cd193fb2da8f24" UNIQUE ("token_hash"), CONSTRAINT "PK_d862311c568d175c26f41bc6f98" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_1725c5ea908ff009f6ab3fa34f" ON "api_token"  ("user_id") `);
    await queryRunner.query(`CREATE TABLE "skill" ("id" SERIAL NOT NULL, "identifier" character varying(100) NOT NULL, "name" character varying(200) NOT NULL, "description" text NOT NULL DEFAULT '', "body" text NOT NULL, "is_process" boolean NOT NULL DEFAULT false, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_5ec72c3cea01f4d9bbe30fd544f" UNIQUE ("identifier"), CONSTRAINT "PK_a0d33334424e64fb78dc3ce7196" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "configuration" ("id" SERIAL NOT NULL, "identifier" character varying(100) NOT NULL, "name" character varying(200) NOT NULL, "provider" character varying(32) NOT NULL, "model" character varying(200) NOT NULL, "provider_options" jsonb NOT NULL DEFAULT '{}', "system_prompt" text NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "require_second_approver" boolean NOT NULL DEFAULT false, "max_iterations" integer NOT NULL DEFAULT '5', "privacy_level" character varying(16) NOT NULL DEFAULT 'METADATA', "allowed_group_ids" integer array NOT NULL DEFAULT '{}', "deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_c5996c527ec616737d8affae4c0" UNIQUE ("identifier"), CONSTRAINT "PK_03bad512915052d2342358f0d8b" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "task" ("id" SERIAL NOT NULL, "identifier" character varying(100) NOT NULL, "name" character varying(200) NOT NULL, "configuration_id" integer NOT NULL, "priority" integer NOT NULL DEFAULT '0', CONSTRAINT "UQ_b2c5b08af6c89f30ee37cea174a" UNIQUE ("identifier"), CONSTRAINT "PK_fb213f79ee45060ba925ecd576e" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_53564076027225d277f1b2676d" ON "task"  ("configuration_id") `);
    await queryRunner.query(`CREATE TABLE "site_language" ("site_id" integer NOT NULL, "language_id" integer NOT NULL, "iso_code" character varying(16) NOT NULL, "title" character varying(200) NOT NULL, CONSTRAINT "PK_6e47f536b9d8639df90e8857fce" PRIMARY KEY ("site_id", "language_id"))`);
    await queryRunner.query(`CREATE TABLE "site" ("id" SERIAL NOT NULL, "name" character varying(200) NOT NULL, CONSTRAINT "UQ_9669a09fcc0eb6d2794a658f647" UNIQUE ("name"), CONSTRAINT "PK_635c0eeabda8862d5b0237b42b4" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "page" ("id" SERIAL NOT NULL, "parent_id" integer, "site_id" integer, "slug" character varying(500) NOT NULL, "sorting" integer NOT NULL DEFAULT '0', "rootline" integer array NOT NULL DEFAULT '{}', CONSTRAINT "PK_742f4117e065c5b6ad21b37ba1f" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_17075bd0e76393d1cb92a2eaaa" ON "page"  ("parent_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_23a89864b7f5e15b16dc9854c4" ON "page"  ("site_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "page_one_root_per_site" ON "page"  ("site_id") WHERE "parent_id" IS NULL AND "site_id" IS NOT NULL`);
    await queryRunner.query(`CREATE TABLE "page_text" ("page_id" integer NOT NULL, "language_id" integer NOT NULL, "workspace_id" integer NOT NULL, "title" character varying(500) NOT NULL, "body" text NOT NULL DEFAULT '', "seo_title" character varying(500), "seo_description" text, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2a2d5ee394c84ba98c13187cac8" PRIMARY KEY ("page_id", "language_id", "workspace_id"))`);
    await queryRunner.query(`CREATE TABLE "group_member" ("user_id" integer NOT NULL, "group_id" integer NOT NULL, CONSTRAINT "PK_4e21968f2f777c87874d5c5f538" PRIMARY KEY ("user_id", "group_id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_b2bc36d5183cc323a0223f9114" ON "group_member"  ("user_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_e200cd6ff3e3903c5be5ae1400" ON "group_member"  ("group_id") `);
    await queryRunner.query(`CREATE TABLE "configuration_skill" ("configuration_id" integer NOT NULL, "skill_id" integer NOT NULL, CONSTRAINT "PK_0e10bd93da2b5642baf88f09230" PRIMARY KEY ("configuration_id", "skill_id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_85722242be14940b5b40aecf86" ON "configuration_skill"  ("configuration_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_7f0fc732abbf0ce7c393231e5e" ON "configuration_skill"  ("skill_id") `);
    await queryRunner.query(`CREATE TABLE "task_skill" ("task_id" integer NOT NULL, "skill_id" integer NOT NULL, CONSTRAINT "PK_62d81e81d339406f9f7b8e9b9cb" PRIMARY KEY ("task_id", "skill_id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_65e4ae8caacb18f0ec8cce4885" ON "task_skill"  ("task_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_7980d9a81b8a7f114e3ad71e5e" ON "task_skill"  ("skill_id") `);
    await queryRunner.query(`CREATE TABLE "task_group" ("task_id" integer NOT NULL, "group_id" integer NOT NULL, CONSTRAINT "PK_e9339fa2cfa69dfde775901977d" PRIMARY KEY ("task_id", "group_id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_f94875a51499fb14abc0cc6367" ON "task_group"  ("task_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_db6f950e1032fbf612de636ff5" ON "task_group"  ("group_id") `);
    await queryRunner.query(`ALTER TABLE "api_token" ADD CONSTRAINT "FK_1725c5ea908ff009f6ab3fa34fd" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "task" ADD CONSTRAINT "FK_53564076027225d277f1b2676db" FOREIGN KEY ("configuration_id") REFERENCES "configuration"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "site_language" ADD CONSTRAINT "FK_1a7159b8c443c28f71d9756983e" FOREIGN KEY ("site_id") REFERENCES "site"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "page" ADD CONSTRAINT "FK_17075bd0e76393d1cb92a2eaaa5" FOREIGN KEY ("parent_id") REFERENCES "page"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "page" ADD CONSTRAINT "FK_23a89864b7f5e15b16dc9854c44" FOREIGN KEY ("site_id") REFERENCES "site"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "page_text" ADD CONSTRAINT "FK_a84e395ee37b4c18b5649fef4dd" FOREIGN KEY ("page_id") REFERENCES "page"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "group_member" ADD CONSTRAINT "FK_b2bc36d5183cc323a0223f9114c" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "group_member" ADD CONSTRAINT "FK_e200cd6ff3e3903c5be5ae1400e" FOREIGN KEY ("group_id") REFERENCES "access_group"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "configuration_skill" ADD CONSTRAINT "FK_85722242be14940b5b40aecf863" FOREIGN KEY ("configuration_id") REFERENCES "configuration"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "configuration_skill" ADD CONSTRAINT "FK_7f0fc732abbf0ce7c393231e5e8" FOREIGN KEY ("skill_id") REFERENCES "skill"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "task_skill" ADD CONSTRAINT "FK_65e4ae8caacb18f0ec8cce48853" FOREIGN KEY ("task_id") REFERENCES "task"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "task_skill" ADD CONSTRAINT "FK_7980d9a81b8a7f114e3ad71e5ec" FOREIGN KEY ("skill_id") REFERENCES "skill"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "task_group" ADD CONSTRAINT "FK_f94875a51499fb14abc0cc6367d" FOREIGN KEY ("task_id") REFERENCES "task"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    await queryRunner.query(`ALTER TABLE "task_group" ADD CONSTRAINT "FK_db6f950e1032fbf612de636ff5f" FOREIGN KEY ("group_id") REFERENCES "access_group"("id") ON DELETE CASCADE ON UPDATE CASCADE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "task_group" DROP CONSTRAINT "FK_db6f950e1032fbf612de636ff5f"`);
    await queryRunner.query(`ALTER TABLE "task_group" DROP CONSTRAINT "FK_f94875a51499fb14abc0cc6367d"`);
    await queryRunner.query(`ALTER TABLE "task_skill" DROP CONSTRAINT "FK_7980d9a81b8a7f114e3ad71e5ec"`);
    await queryRunner.query(`ALTER TABLE "task_skill" DROP CONSTRAINT "FK_65e4ae8caacb18f0ec8cce48853"`);
    await queryRunner.query(`ALTER TABLE "configuration_skill" DROP CONSTRAINT "FK_7f0fc732abbf0ce7c393231e5e8"`);
    await queryRunner.query(`ALTER TABLE "configuration_skill" DROP CONSTRAINT "FK_85722242be14940b5b40aecf863"`);
    await queryRunner.query(`ALTER TABLE "group_member" DROP CONSTRAINT "FK_e200cd6ff3e3903c5be5ae1400e"`);
    await queryRunner.query(`ALTER TABLE "group_member" DROP CONSTRAINT "FK_b2bc36d5183cc323a0223f9114c"`);
    await queryRunner.query(`ALTER TABLE "page_text" DROP CONSTRAINT "FK_a84e395ee37b4c18b5649fef4dd"`);
    await queryRunner.query(`ALTER TABLE "page" DROP CONSTRAINT "FK_23a89864b7f5e15b16dc9854c44"`);
    await queryRunner.query(`ALTER TABLE "page" DROP CONSTRAINT "FK_17075bd0e76393d1cb92a2eaaa5"`);
    await queryRunner.query(`ALTER TABLE "site_language" DROP CONSTRAINT "FK_1a7159b8c443c28f71d9756983e"`);
    await queryRunner.query(`ALTER TABLE "task" DROP CONSTRAINT "FK_53564076027225d277f1b2676db"`);
    await queryRunner.query(`ALTER TABLE "api_token" DROP CONSTRAINT "FK_1725c5ea908ff009f6ab3fa34fd"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_db6f950e1032fbf612de636ff5"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_f94875a51499fb14abc0cc6367"`);
    await queryRunner.query(`DROP TABLE "task_group"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_7980d9a81b8a7f114e3ad71e5e"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_65e4ae8caacb18f0ec8cce4885"`);
    await queryRunner.query(`DROP TABLE "task_skill"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_7f0fc732abbf0ce7c393231e5e"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_85722242be14940b5b40aecf86"`);
    await queryRunner.query(`DROP TABLE "configuration_skill"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_e200cd6ff3e3903c5be5ae1400"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b2bc36d5183cc323a0223f9114"`);
    await queryRunner.query(`DROP TABLE "group_member"`);
    await queryRunner.query(`DROP TABLE "page_text"`);
    await queryRunner.query(`DROP INDEX "public"."page_one_root_per_site"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_23a89864b7f5e15b16dc9854c4"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_17075bd0e76393d1cb92a2eaaa"`);
    await queryRunner.query(`DROP TABLE "page"`);
    await queryRunner.query(`DROP TABLE "site"`);
    await queryRunner.query(`DROP TABLE "site_language"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_53564076027225d277f1b2676d"`);
    await queryRunner.query(`DROP TABLE "task"`);
    await queryRunner.query(`DROP TABLE "configuration"`);
    await queryRunner.query(`DROP TABLE "skill"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_1725c5ea908ff009f6ab3fa34f"`);
    await queryRunner.query(`DROP TABLE "api_token"`);
    await queryRunner.query(`DROP TABLE "app_user"`);
    await queryRunner.query(`DROP TABLE "access_group"`);
  }
}
