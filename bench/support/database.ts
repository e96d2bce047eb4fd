import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createDemoTokens } from '../../src/demo/demo-tokens';
import { seedDemo } from '../../src/demo/seed-demo';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { onCleanup } from './cleanup';
import { withDatabase } from './env';

/** A scenario's own database on the bench server: migrated, seeded with the demo data. */
export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  /** pg_database.oid: attributes WAL records to this database (see wal.ts). */
  readonly oid: number;
  /** A fresh API token per demo user (admin, alice, bob, carol, dave, erin). */
  readonly tokens: Record<string, string>;
  /** Drops the database (WITH FORCE); safe to call twice. */
  drop(): Promise<void>;
}

/** A raw connection to the server's maintenance database (CREATE / DROP DATABASE). */
async function adminClient(serverUrl: string): Promise<Client> {
  const client = new Client({ connectionString: serverUrl, application_name: 'countersign-bench-admin' });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Creates `bench_<scenario>_<random>` on the server of `serverUrl` and prepares it with the
 * project's own code: the migrations, the demo seed (src/demo/seed-demo.ts), demo tokens.
 * The database is dropped by `drop()`, or by the runner's cleanup on Ctrl-C.
 */
export async function createBenchDatabase(serverUrl: string, scenarioId: string): Promise<BenchDatabase> {
  const name = `bench_${scenarioId.toLowerCase().replace(/[^a-z0-9]/g, '')}_${randomBytes(4).toString('hex')}`;
  const admin = await adminClient(serverUrl);
  let oid: number;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const rows = await admin.query<{ oid: number }>(
      'SELECT oid::int AS oid FROM pg_database WHERE datname = $1',
      [name],
    );
    oid = rows.rows[0]!.oid;
  } finally {
    await admin.end();
  }
  const drop = onCleanup(async () => {
    const c = await adminClient(serverUrl);
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  const url = withDatabase(serverUrl, name);
  try {
    const ds = new DataSource(dataSourceOptions({ kind: 'postgres', url }, 2));
    await ds.initialize();
    try {
      await ds.runMigrations({ transaction: 'each' });
      // why: the seed's audit records are logged as they are made; a bench's output is its figures.
      // The app a scenario boots later sets its own logger.
      Logger.overrideLogger(['error', 'warn']);
      await seedDemo(ds);
      const tokens = await createDemoTokens(ds);
      return { name, url, oid, tokens, drop };
    } finally {
      await ds.destroy();
    }
  } catch (e) {
    await drop();
    throw e;
  }
}

/** Runs `fn` on a fresh bench database and drops it afterwards, however `fn` ends. */
export async function withBenchDatabase<T>(
  serverUrl: string,
  scenarioId: string,
  fn: (db: BenchDatabase) => Promise<T>,
): Promise<T> {
  const db = await createBenchDatabase(serverUrl, scenarioId);
  try {
    return await fn(db);
  } finally {
    await db.drop();
  }
}
