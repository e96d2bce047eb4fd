import type { DataSource, QueryRunner } from 'typeorm';
import { PREPARED_PER_CONNECTION } from '../../../src/platform/database/statement-cache';
import { connect, createFreshDatabase, type FreshDatabase } from './house-support';

/**
 * The app's pool sends each statement with parameters as a named prepared statement
 * (src/platform/database/statement-cache.ts): parsed once per connection, its plan reused.
 */
describe('prepared statements of the app pool', () => {
  let db: FreshDatabase;
  let ds: DataSource;
  let runner: QueryRunner;

  beforeAll(async () => {
    db = await createFreshDatabase();
    ds = await connect(db.target);
    await ds.query(`CREATE TABLE item (id int PRIMARY KEY, label text NOT NULL)`);
    await ds.query(`INSERT INTO item VALUES (1, 'one'), (2, 'two')`);
  });
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.dispose();
  });
  beforeEach(async () => {
    runner = ds.createQueryRunner();
    await runner.connect();
  });
  afterEach(async () => {
    await runner.release();
  });

  /** Prepared statements of this connection whose text contains `marker`. */
  async function preparedWith(marker: string): Promise<string[]> {
    const rows: Array<{ statement: string }> = await runner.query(
      `SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%' || $1 || '%' AND statement NOT LIKE '%pg_prepared_statements%'`,
      [marker],
    );
    return rows.map((r) => r.statement);
  }

  it('prepares a statement with parameters once per connection and reuses it', async () => {
    for (const id of [1, 2, 1]) {
      const rows: Array<{ label: string }> = await runner.query(
        `SELECT label FROM item WHERE id = $1 /* reuse */`,
        [id],
      );
      expect(rows).toEqual([{ label: id === 1 ? 'one' : 'two' }]);
    }
    expect(await preparedWith('/* reuse */')).toHaveLength(1);
  });

  it('sends statements without parameters and whole-row projections unnamed', async () => {
    await runner.query(`SELECT label FROM item WHERE id = 1 /* no params */`);
    await runner.query(`SELECT * FROM item WHERE id = $1 /* star */`, [1]);
    await runner.query(`UPDATE item SET label = label WHERE id = $1 RETURNING * /* returning star */`, [1]);
    await runner.query(`SELECT count(*) AS n FROM item WHERE id > $1 /* count star */`, [0]);
    expect(await preparedWith('/* no params */')).toEqual([]);
    expect(await preparedWith('/* star */')).toEqual([]);
    expect(await preparedWith('/* returning star */')).toEqual([]);
    // why: count(*) is no projection of the row: it is prepared like any other statement.
    expect(await preparedWith('/* count star */')).toHaveLength(1);
  });

  it('still runs several commands in one text without parameters', async () => {
    await runner.query(
      `UPDATE item SET label = 'uno' WHERE id = 1; UPDATE item SET label = 'one' WHERE id = 1`,
    );
    expect(await runner.query(`SELECT label FROM item WHERE id = $1`, [1])).toEqual([{ label: 'one' }]);
  });

  it('keeps working when a column is added while the statements are prepared', async () => {
    const claim = `UPDATE item SET label = label WHERE id = $1 RETURNING id, label /* after alter */`;
    await runner.query(claim, [2]);
    await runner.query(`SELECT * FROM item WHERE id = $1`, [2]);
    await runner.query(`ALTER TABLE item ADD COLUMN extra int`);
    try {
      expect(await runner.query(claim, [2])).toEqual([[{ id: 2, label: 'two' }], 1]);
      expect(await runner.query(`SELECT * FROM item WHERE id = $1`, [2])).toEqual([
        { id: 2, label: 'two', extra: null },
      ]);
    } finally {
      await runner.query(`ALTER TABLE item DROP COLUMN extra`);
    }
  });

  it('keeps a statement first prepared in a transaction that rolled back', async () => {
    await runner.startTransaction();
    await runner.query(`UPDATE item SET label = $2 WHERE id = $1 /* rolled back */`, [1, 'eins']);
    await runner.rollbackTransaction();
    await runner.query(`UPDATE item SET label = $2 WHERE id = $1 /* rolled back */`, [1, 'one']);
    expect(await runner.query(`SELECT label FROM item WHERE id = $1`, [1])).toEqual([{ label: 'one' }]);
    expect(await preparedWith('/* rolled back */')).toHaveLength(1);
  });

  it(`prepares at most ${PREPARED_PER_CONNECTION} statements per connection and sends the rest unnamed`, async () => {
    const count = PREPARED_PER_CONNECTION + 20;
    for (let i = 0; i < count; i++) {
      const rows: Array<{ n: number }> = await runner.query(`SELECT $1::int + ${i} AS n /* bounded */`, [1]);
      expect(rows[0]!.n).toBe(1 + i);
    }
    const prepared = (await preparedWith('/* bounded */')).length;
    expect(prepared).toBeGreaterThan(0);
    expect(prepared).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
  });
});
