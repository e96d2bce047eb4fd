/* eslint-disable no-console */
import 'reflect-metadata';
import type { Server } from 'node:net';
import { DataSource } from 'typeorm';
import { createApp } from './bootstrap';
import { ConfigError, loadConfig } from './config/app-config';
import { createDemoTokens, demoTokenLines, demoTokensPath, writeDemoTokens } from './demo/demo-tokens';
import { seedDemo } from './demo/seed-demo';
import { DatabaseTarget } from './platform/database/data-source-options';
import { DataDirPermissionError } from './platform/database/data-dir';
import { DataDirBusyError, EmbeddedDatabase, openEmbeddedDatabase } from './platform/database/pglite';
import { resolveStateKey, StateKeyError } from './platform/database/state-key';

async function main(): Promise<void> {
  const loaded = loadConfig();
  // why: `npm run start:api` runs an API-only instance; workers run as `npm run start:worker`.
  const config = process.argv.includes('--api-only') ? { ...loaded, workerEnabled: false } : loaded;
  let embedded: EmbeddedDatabase | null = null;
  let target: DatabaseTarget;
  if (config.databaseUrl) {
    target = { kind: 'postgres', url: config.databaseUrl };
  } else {
    embedded = await openEmbeddedDatabase(config.dataDir);
    target = { kind: 'pglite', pglite: embedded.pglite };
  }
  // why: the state key (generated, or a key file checked for weakness) is resolved before the
  // application is built, so a refusal reaches the message below instead of Nest's logger.
  resolveStateKey(config.stateEncryptionKey, config.dataDir);
  const app = await createApp(config, target);
  // why: the one place that handles the signals (no Nest shutdown hooks, which re-raise the
  // signal once they are done and so raced this handler for the exit code), in place before
  // the server starts and kept for the whole shutdown: a signal that arrives while booting, or
  // a second one while stopping, must not fall to the default action (killed, no exit code).
  // Close the application (its shutdown hooks run), then the embedded database, then exit 0.
  let stopping: Promise<void> | null = null;
  const shutdown = (): Promise<void> =>
    (stopping ??= (async () => {
      await app.close();
      await embedded?.close();
      process.exit(0);
    })());
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  await app.init();
  let newTokens: Record<string, string> | null = null;
  if (config.seedDemo) {
    const dataSource = app.get(DataSource);
    const { created } = await seedDemo(dataSource);
    if (created && embedded) {
      newTokens = await createDemoTokens(dataSource);
      writeDemoTokens(config.dataDir, newTokens);
    }
  }
  await app.listen(config.port, config.host);
  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  // The port the server got, not the one asked for: PORT=0 lets the system pick a free one.
  const port = boundPort(app.getHttpServer() as Server, config.port);
  const base = `http://${host}:${port}`;
  const lines = [
    '',
    `Countersign is running (${embedded ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
    `  GraphQL:   ${base}/graphql  (subscriptions: ws://${host}:${port}/graphql)`,
    `  App:       ${base}/app  (the reference client: inbox and chat)`,
    `  GraphiQL:  ${base}/graphiql`,
    `  Health:    ${base}/health`,
  ];
  lines.push(...demoTokenLines(newTokens, embedded ? demoTokensPath(config.dataDir) : null));
  console.log(lines.join('\n') + '\n');
}

function boundPort(server: Server, asked: number): number {
  const address = server.address();
  return address !== null && typeof address === 'object' ? address.port : asked;
}

main().catch((e: unknown) => {
  if (
    e instanceof ConfigError ||
    e instanceof DataDirBusyError ||
    e instanceof DataDirPermissionError ||
    e instanceof StateKeyError
  ) {
    console.error(e.message);
  } else {
    console.error(e);
  }
  process.exit(1);
});
