import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Token budgets: a configuration may cap the tokens of one run and of one user's runs per UTC
 * day (null: no cap). The day's sum reads `run` through `run_owner_created_idx`.
 */
export class CapTokensPerConfiguration1796180000000 implements MigrationInterface {
  name = 'CapTokensPerConfiguration1796180000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "configuration" ADD "max_tokens_per_run" integer`);
    await queryRunner.query(`ALTER TABLE "configuration" ADD "max_tokens_per_user_per_day" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "configuration" DROP COLUMN "max_tokens_per_user_per_day"`);
    await queryRunner.query(`ALTER TABLE "configuration" DROP COLUMN "max_tokens_per_run"`);
  }
}
