import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildIndex, concurrently } from './support/online-index';

/**
 * Indexes in the order of the chat's and the tokens' cursor pages (docs/pagination.md), built
 * CONCURRENTLY outside a transaction; each is dropped first so that a run after a failed build
 * rebuilds it instead of keeping an invalid index.
 */
export class IndexTheChatAndTokenLists1796149854040 implements MigrationInterface {
  name = 'IndexTheChatAndTokenLists1796149854040';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    const c = concurrently(queryRunner);
    const build = (name: string, definition: string) => buildIndex(queryRunner, name, definition);
    await build(
      'conversation_owner_active_idx',
      `ON "conversation" ("owner_id", "updated_at", "id") WHERE "archived_at" IS NULL`,
    );
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "conversation_owner_idx"`);
    await build('api_token_user_created_idx', `ON "api_token" ("user_id", "created_at", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    const c = concurrently(queryRunner);
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "api_token_user_created_idx"`);
    await queryRunner.query(
      `CREATE INDEX ${c} IF NOT EXISTS "conversation_owner_idx" ON "conversation" ("owner_id", "updated_at")`,
    );
    await queryRunner.query(`DROP INDEX ${c} IF EXISTS "conversation_owner_active_idx"`);
  }
}
