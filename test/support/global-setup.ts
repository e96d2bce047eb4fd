// Prepares one migrated, seeded database per test run that every test file copies:
// a PostgreSQL template database (DATABASE_URL set) or a dumped PGlite data directory.
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createDemoTokens } from '../../src/demo/demo-tokens';
import { seedDemo } from '../../src/demo/seed-demo';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { openMemoryDatabase } from '../../src/platform/database/pglite';
import { adminUrl, ENV_SNAPSHOT, ENV_TEMPLATE_DB, ENV_TOKENS, usingPostgres, withDatabase } from './test-env';

async function prepare(ds: DataSource): Promise<Record<string, string>> {
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  // why: the seed's audit records are logged as they are made; the test run's output is its tests.
  Logger.overrideLogger(['error', 'warn']);
  await seedDemo(ds);
  const tokens = await createDemoTokens(ds);
  await ds.destroy();
  return tokens;
}

export default async function globalSetup(): Promise<void> {
  if (process.env[ENV_TOKENS]) return; // a second project in the same run: already prepared
  if (usingPostgres()) {
    const name = `cs_tpl_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const tokens = await prepare(
      new DataSource(dataSourceOptions({ kind: 'postgres', url: withDatabase(adminUrl(), name) }, 2)),
    );
    process.env[ENV_TEMPLATE_DB] = name;
    process.env[ENV_TOKENS] = JSON.stringify(tokens);
    return;
  }
  const db = await openMemoryDatabase();
  const tokens = await prepare(new DataSource(dataSourceOptions({ kind: 'pglite', pglite: db.pglite }, 1)));
  const dump = await db.pglite.dumpDataDir('none');
  const path = join(tmpdir(), `cs-test-snapshot-${process.pid}.tar`);
  writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  process.env[ENV_SNAPSHOT] = path;
  process.env[ENV_TOKENS] = JSON.stringify(tokens);
}
