import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in through the organisation's identity provider: a user may be linked to one issuer and
 * subject (unique together), has an email from the provider's claims, and admins map the values
 * of the groups claim to groups (and, explicitly, to admin rights).
 */
export class SignInThroughIdentityProvider1796150000000 implements MigrationInterface {
  name = 'SignInThroughIdentityProvider1796150000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "app_user" ADD "identity_issuer" character varying(500)`);
    await queryRunner.query(`ALTER TABLE "app_user" ADD "identity_subject" character varying(255)`);
    await queryRunner.query(`ALTER TABLE "app_user" ADD "email" character varying(320)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "app_user_identity_idx" ON "app_user" ("identity_issuer", "identity_subject")`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity_group_mapping" ("id" SERIAL NOT NULL, "claim_value" character varying(200) NOT NULL,
        "group_id" integer NOT NULL, "grants_admin" boolean NOT NULL DEFAULT false,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "identity_group_mapping_value_group_uq" UNIQUE ("claim_value", "group_id"),
        CONSTRAINT "PK_identity_group_mapping" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity_group_mapping" ADD CONSTRAINT "FK_identity_group_mapping_group"
        FOREIGN KEY ("group_id") REFERENCES "access_group"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "identity_group_mapping"`);
    await queryRunner.query(`DROP INDEX "app_user_identity_idx"`);
    await queryRunner.query(`ALTER TABLE "app_user" DROP COLUMN "email"`);
    await queryRunner.query(`ALTER TABLE "app_user" DROP COLUMN "identity_subject"`);
    await queryRunner.query(`ALTER TABLE "app_user" DROP COLUMN "identity_issuer"`);
  }
}
