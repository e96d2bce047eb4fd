// Helpers of the house tests: an EMPTY database (no migrations, no data) for tests that start
// from nothing (a new database on the PostgreSQL server of DATABASE_URL, else a fresh in-memory
// PGlite), and per-table row counts and checksums to show that something changed nothing.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, DatabaseTarget } from '../../../src/platform/database/data-source-options';
import { openMemoryDatabase } from '../../../src/platform/database/pglite';
import { adminUrl, ENV_TEMPLATE_DB, usingPostgres, withDatabase } from '../../support/test-env';

export interface FreshDatabase {
  readonly target: DatabaseTarget;
  /** The URL of the new database on PostgreSQL; null on PGlite. */
  readonly url: string | null;
  dispose(): Promise<void>;
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A new, empty database; dispose() drops it (PostgreSQL) or closes it (PGlite). */
export async function createFreshDatabase(): Promise<FreshDatabase> {
  if (!usingPostgres()) {
    const db = await openMemoryDatabase();
    return { target: { kind: 'pglite', pglite: db.pglite }, url: null, dispose: () => db.close() };
  }
  // why: named like the test support's copies so the global teardown drops it even when a
  // test dies before its own dispose().
  const run = (process.env[ENV_TEMPLATE_DB] ?? 'cs_tpl_none').slice(7);
  const name = `cs_t_${run}_empty_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(adminUrl(), name);
  return {
    target: { kind: 'postgres', url },
    url,
    dispose: () =>
      admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A data source on a database, initialised; PGlite gets its single connection. */
export async function connect(target: DatabaseTarget): Promise<DataSource> {
  const ds = new DataSource(dataSourceOptions(target, target.kind === 'pglite' ? 1 : 2));
  await ds.initialize();
  return ds;
}

/** The base tables of the public schema, sorted. */
export async function publicTables(ds: DataSource): Promise<string[]> {
  const rows: { table_name: string }[] = await ds.query(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

export interface TableState {
  readonly rows: number;
  /** md5 of every row's text form, in a stable order ('' for an empty table). */
  readonly checksum: string;
}

/** Row count and content checksum of every table in the public schema. */
export async function snapshot(ds: DataSource): Promise<Record<string, TableState>> {
  const state: Record<string, TableState> = {};
  for (const table of await publicTables(ds)) {
    const [row] = await ds.query<[TableState]>(
      `SELECT count(*)::int AS rows, coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS checksum
       FROM "${table}" t`,
    );
    state[table] = { rows: row.rows, checksum: row.checksum };
  }
  return state;
}

/** The number of rows of a table. */
export async function count(ds: DataSource, table: string): Promise<number> {
  const [row] = await ds.query<[{ n: number }]>(`SELECT count(*)::int AS n FROM "${table}"`);
  return row.n;
}
