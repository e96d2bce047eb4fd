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

/** Skips a test body on PGlite, saying so: real concurrency needs PostgreSQL. */
export function itOnPostgres(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (usingPostgres()) it(name, fn, timeout);
  else it.skip(`${name} [skipped: needs PostgreSQL (DATABASE_URL); PGlite is one session]`, fn, timeout);
}
