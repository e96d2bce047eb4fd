/* eslint-disable no-console */
// Writes schema.gql by booting the application once on an empty in-memory database
// (code-first: the schema is what the resolvers declare). `npm run schema:generate`.
import 'reflect-metadata';
import { createApp } from '../../bootstrap';
import { loadConfig } from '../../config/app-config';
import { openMemoryDatabase } from '../database/pglite';
import { SCHEMA_FILE } from './graphql.setup';

async function main(): Promise<void> {
  const db = await openMemoryDatabase();
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    DB_MIGRATE: 'false',
    SEED_DEMO: 'false',
    WORKER_ENABLED: 'false',
  });
  const app = await createApp(config, { kind: 'pglite', pglite: db.pglite });
  await app.init();
  await app.close();
  await db.close();
  console.log(`wrote ${SCHEMA_FILE}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
