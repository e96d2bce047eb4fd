import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * NOTIFY `countersign_auth` on every change of what a token grants (tokens, users, groups,
 * memberships), from the API or from SQL: the API instances drop their cached token re-checks
 * at once, so an open subscription loses a revoked token or a lost grant at its next event.
 */
export class NotifyAuthChanges1796150000001 implements MigrationInterface {
  name = 'NotifyAuthChanges1796150000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION "notify_auth_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('countersign_auth', TG_TABLE_NAME);
  RETURN NULL;
END $$`);
    // why: a token's use stamp (last_used_at) changes nothing it grants and is written often.
    const events: Record<string, string> = {
      api_token: 'UPDATE OF revoked_at, expires_at, user_id OR DELETE',
      app_user: 'UPDATE OR DELETE',
      access_group: 'UPDATE OR DELETE',
      group_member: 'INSERT OR UPDATE OR DELETE',
    };
    for (const [table, on] of Object.entries(events)) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_auth_changed" AFTER ${on} ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_changed"()`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['api_token', 'app_user', 'access_group', 'group_member']) {
      await queryRunner.query(`DROP TRIGGER "${table}_auth_changed" ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION "notify_auth_changed"()`);
  }
}
