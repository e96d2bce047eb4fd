/* eslint-disable no-console */
// A worker process (`npm run start:worker`): claims queued runs and recorded decisions,
// runs the reaper, keeps a heartbeat; no HTTP. Needs PostgreSQL (DATABASE_URL).
import 'reflect-metadata';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from './config/app-config';
import { WorkerHeartbeat } from './modules/worker';
import { DataDirPermissionError } from './platform/database/data-dir';
import { resolveStateKey, StateKeyError } from './platform/database/state-key';
import { createWorkerContext } from './worker.module';

/** Printed when there is no DATABASE_URL (exit code 1). */
const EMBEDDED_REFUSAL = [
  'npm run start:worker needs PostgreSQL: set DATABASE_URL.',
  'Without DATABASE_URL Countersign uses the embedded database in DATA_DIR, which is a single',
  'session that only one process can open, and the server (`npm start`) already runs a worker',
  'in-process. Nothing to start here.',
].join('\n');

function onSignals(app: INestApplicationContext): void {
  const logger = new Logger('Worker');
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting for the runs in progress`);
      process.exit(1);
    }
    stopping = true;
    logger.log(`${signal}: stopping (no new claims; waiting for the runs in progress)`);
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'the worker did not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    console.error(EMBEDDED_REFUSAL);
    process.exit(1);
  }
  // why: resolved before the context is built, so a weak key file is refused with its message.
  resolveStateKey(config.stateEncryptionKey, config.dataDir);
  const app = await createWorkerContext(config, { kind: 'postgres', url: config.databaseUrl });
  onSignals(app);
  const heartbeat = app.get(WorkerHeartbeat);
  new Logger('Worker').log(
    `Countersign worker ${heartbeat.workerId} started (concurrency ${config.workerConcurrency}); SIGTERM stops it`,
  );
}

main().catch((e: unknown) => {
  const known = e instanceof ConfigError || e instanceof StateKeyError || e instanceof DataDirPermissionError;
  console.error(known ? e.message : e);
  process.exit(1);
});
