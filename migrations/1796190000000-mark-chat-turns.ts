import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run started as a chat turn says so (`run.chat_turn`): only such a run can be a
 * conversation's active run, so the settle of any other run skips the conversation lookup.
 * Runs a conversation already points at, or has messages of, are marked.
 */
export class MarkChatTurns1796190000000 implements MigrationInterface {
  name = 'MarkChatTurns1796190000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "run" ADD "chat_turn" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `UPDATE run SET chat_turn = true
        WHERE id IN (SELECT active_run_id FROM conversation WHERE active_run_id IS NOT NULL
                     UNION SELECT last_run_id FROM conversation WHERE last_run_id IS NOT NULL
                     UNION SELECT run_id FROM conversation_message WHERE run_id IS NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "run" DROP COLUMN "chat_turn"`);
  }
}
