import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import { pendingSchemaChanges } from '../../../src/platform/database/migrate';
import { connect, createFreshDatabase, FreshDatabase, publicTables } from './house-support';

/** Tables TypeORM keeps for itself: the migration log (and metadata, should it ever need it). */
const BOOKKEEPING = new Set(['schema_migration', 'typeorm_metadata']);

async function appTables(ds: DataSource): Promise<string[]> {
  return (await publicTables(ds)).filter((t) => !BOOKKEEPING.has(t));
}

async function publicEnumTypes(ds: DataSource): Promise<string[]> {
  const rows: { typname: string }[] = await ds.query(
    `SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE n.nspname = 'public' AND t.typtype = 'e' ORDER BY t.typname`,
  );
  return rows.map((r) => r.typname);
}

// The migrations, run on an EMPTY database (not the test template): they must build exactly
// the schema the entities describe, and their down() must take it all away again.
describe('migrations from an empty database', () => {
  let db: FreshDatabase;
  let ds: DataSource;
  let entityTables: string[];

  beforeAll(async () => {
    db = await createFreshDatabase();
    ds = await connect(db.target);
    entityTables = [...new Set(ds.entityMetadatas.map((m) => m.tablePath))].sort();
  });
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.dispose();
  });

  it('starts with no tables at all', async () => {
    expect(await publicTables(ds)).toEqual([]);
  });

  it('runs every migration in order and creates every entity table', async () => {
    const applied = await ds.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(entityTables.length).toBeGreaterThanOrEqual(10);
    expect(await appTables(ds)).toEqual(entityTables);
    const log: { name: string }[] = await ds.query('SELECT name FROM schema_migration ORDER BY id');
    expect(log.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it('leaves no drift between the entities and the migrated schema', async () => {
    const { up } = await pendingSchemaChanges(ds);
    expect(up).toEqual([]);
  });

  it('marks the runs the conversations know of as chat turns when it adds `run.chat_turn`', async () => {
    // why: undone back to before it, the migrations after it first
    const at = MIGRATIONS.findIndex((m) => m.name === 'MarkChatTurns1796190000000');
    expect(at).toBeGreaterThan(0);
    for (let i = MIGRATIONS.length; i > at; i--) await ds.undoLastMigration({ transaction: 'each' });
    const [user] = await ds.query<Array<{ id: number }>>(
      `INSERT INTO app_user (username, display_name) VALUES ('m', 'M') RETURNING id`,
    );
    const [configuration] = await ds.query<Array<{ id: number }>>(
      `INSERT INTO configuration (identifier, name, provider, model) VALUES ('m', 'M', 'scripted', 'm') RETURNING id`,
    );
    const ids = ['active', 'last', 'messaged', 'api'].map(
      (_, i) => `00000000-0000-4000-8000-00000000000${i + 1}`,
    );
    for (const id of ids) {
      await ds.query(
        `INSERT INTO run (id, configuration_id, owner_id, max_iterations, status) VALUES ($1, $2, $3, 5, 'COMPLETED')`,
        [id, configuration!.id, user!.id],
      );
    }
    const conversation = '00000000-0000-4000-8000-0000000000c1';
    await ds.query(
      `INSERT INTO conversation (id, owner_id, title, active_run_id, last_run_id) VALUES ($1, $2, 'c', $3, $4)`,
      [conversation, user!.id, ids[0], ids[1]],
    );
    await ds.query(
      `INSERT INTO conversation_message (conversation_id, role, text, run_id) VALUES ($1, 'ASSISTANT', 'a', $2)`,
      [conversation, ids[2]],
    );
    await ds.runMigrations({ transaction: 'each' });
    const marked = await ds.query<Array<{ id: string; chat_turn: boolean }>>(
      `SELECT id, chat_turn FROM run ORDER BY id`,
    );
    expect(marked).toEqual(ids.map((id, i) => ({ id, chat_turn: i < 3 })));
    await ds.query(`DELETE FROM conversation_message; DELETE FROM conversation; DELETE FROM run`);
    await ds.query(`DELETE FROM configuration; DELETE FROM app_user`);
  });

  it('reverts every migration, leaving no app table, enum type or migration record', async () => {
    for (let i = 0; i < MIGRATIONS.length; i++) await ds.undoLastMigration({ transaction: 'each' });
    expect(await appTables(ds)).toEqual([]);
    expect(await publicEnumTypes(ds)).toEqual([]);
    expect(await ds.query('SELECT name FROM schema_migration')).toEqual([]);
  });

  it('migrates again after the revert, to the same schema', async () => {
    const applied = await ds.runMigrations({ transaction: 'each' });
    expect(applied).toHaveLength(MIGRATIONS.length);
    expect(await appTables(ds)).toEqual(entityTables);
    expect((await pendingSchemaChanges(ds)).up).toEqual([]);
  });
});
