import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, DatabaseTarget } from '../../src/platform/database/data-source-options';
import { openMemoryDatabase } from '../../src/platform/database/pglite';
import { adminUrl, ENV_SNAPSHOT, ENV_TEMPLATE_DB, ENV_TOKENS, usingPostgres, withDatabase } from './test-env';

export interface TestDatabase {
  readonly target: DatabaseTarget;
  /** For PostgreSQL: the URL of this test file's own database. */
  readonly url: string | null;
  readonly kind: 'postgres' | 'pglite';
  /** A data source of its own (PostgreSQL), or null on PGlite (use the app's). */
  dispose(): Promise<void>;
}

/** The demo users' tokens created by the global setup. */
export function demoTokens(): Record<string, string> {
  const raw = process.env[ENV_TOKENS];
  if (!raw) throw new Error('global setup did not run');
  return JSON.parse(raw) as Record<string, string>;
}

/**
 * A fresh, migrated database with the demo data for one test file: a copy of the template
 * database on PostgreSQL, or a PGlite loaded from the snapshot.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (usingPostgres()) {
    const template = process.env[ENV_TEMPLATE_DB];
    if (!template) throw new Error('global setup did not create a template database');
    const name = `cs_t_${template.slice(7)}_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await admin.end();
    }
    const url = withDatabase(adminUrl(), name);
    return {
      kind: 'postgres',
      url,
      target: { kind: 'postgres', url },
      dispose: async () => {
        const c = new Client({ connectionString: adminUrl() });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const path = process.env[ENV_SNAPSHOT];
  if (!path) throw new Error('global setup did not create a PGlite snapshot');
  const db = await openMemoryDatabase(new Blob([readFileSync(path)]));
  return {
    kind: 'pglite',
    url: null,
    target: { kind: 'pglite', pglite: db.pglite },
    dispose: () => db.close(),
  };
}

/** A standalone data source on a test database (integration tests). */
export async function openDataSource(db: TestDatabase, poolSize = 10): Promise<DataSource> {
  const ds = new DataSource(dataSourceOptions(db.target, db.kind === 'pglite' ? 1 : poolSize));
  await ds.initialize();
  return ds;
}

/** The database of a describe block and the data source open on it (useTestDatabase). */
export interface SuiteDatabase {
  /** The suite's own test database: read at each use, so it serves inside tests and in later hooks. */
  readonly db: TestDatabase;
  /** The data source on it, read at each use: the opened one itself, so its identity holds. */
  readonly ds: DataSource;
}

export interface SuiteDatabaseOptions {
  /** The data source's pool size on PostgreSQL (openDataSource's default unless given). */
  poolSize?: number;
  /** Silences Nest's Logger first (`Logger.overrideLogger(false)`), for suites of services that log. */
  quietLogs?: boolean;
}

/**
 * Creates a test database and opens a data source on it in a beforeAll of the calling describe
 * block, and closes both in an afterAll. `db` and `ds` are read at each use (keep the returned
 * object, do not destructure it where the suite is declared); one read before the beforeAll (or
 * after it failed) throws. The suite's own beforeAll hooks, declared after this call, run after it.
 */
export function useTestDatabase(options: SuiteDatabaseOptions = {}): SuiteDatabase {
  let db: TestDatabase | undefined;
  let ds: DataSource | undefined;
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('useTestDatabase: the database is read before its beforeAll opened it');
    return value;
  };
  beforeAll(async () => {
    if (options.quietLogs) Logger.overrideLogger(false);
    db = await createTestDatabase();
    ds = await openDataSource(db, options.poolSize);
  });
  afterAll(async () => {
    try {
      await ds?.destroy();
    } finally {
      await db?.dispose();
    }
  });
  return {
    get db() {
      return opened(db);
    },
    get ds() {
      return opened(ds);
    },
  };
}

/** Skips a test body on PGlite, saying so: real concurrency needs PostgreSQL. */
export function itOnPostgres(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (usingPostgres()) it(name, fn, timeout);
  else it.skip(`${name} [skipped: needs PostgreSQL (DATABASE_URL); PGlite is one session]`, fn, timeout);
}
