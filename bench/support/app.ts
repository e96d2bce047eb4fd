import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/bootstrap';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import type { BenchDatabase } from './database';
import { GraphQLClient } from './graphql';

/** The application booted in-process on a bench database, listening on 127.0.0.1:<random>. */
export interface BenchApp {
  readonly app: INestApplication;
  readonly config: AppConfig;
  /** The app's own data source (its pool). */
  readonly dataSource: DataSource;
  readonly httpUrl: string;
  readonly wsUrl: string;
  /** GraphQL over HTTP as the demo admin; `.as(db.tokens.alice)` for another user. */
  readonly gql: GraphQLClient;
  close(): Promise<void>;
}

export interface BootOptions {
  /** Environment overrides, validated by the project's `loadConfig` like any deployment's. */
  readonly env?: Record<string, string>;
  /**
   * Overrides applied after validation, for values a deployment cannot set (e.g. an
   * iteration ceiling above the env schema's 100 for P5's 500-round runs). Say so in results.
   */
  readonly config?: Partial<AppConfig>;
}

/** One state key per bench process: runs of a scenario must open their own checkpoints. */
const STATE_KEY = randomBytes(32).toString('base64');

/**
 * Boots the app with `createApp(loadConfig(env), {kind: 'postgres', url})` as production
 * would (NODE_ENV=production, no migrations or seed at boot: the database is prepared), with
 * logging at `warn` so request logs do not flood the bench output, and the per-token rate
 * limit raised out of the way.
 */
export async function bootApp(db: BenchDatabase, options: BootOptions = {}): Promise<BenchApp> {
  const base = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    DATABASE_URL: db.url,
    STATE_ENCRYPTION_KEY: STATE_KEY,
    DB_MIGRATE: 'false',
    SEED_DEMO: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // why: the scenarios start many runs per user and leave many waiting.
    RUN_STARTS_PER_MINUTE: '1000000',
    RUNS_MAX_WAITING_PER_USER: '100000',
    // why: the scenarios hold thousands of graphql-ws connections as one user (bob).
    WS_MAX_CONNECTIONS_PER_USER: '100000',
    ...options.env,
  });
  const config: AppConfig = { ...base, ...options.config };
  const app = await createApp(config, { kind: 'postgres', url: db.url });
  // why: createApp enables Nest's shutdown hooks, which close the app on SIGINT and then
  // re-send the signal; in the bench the runner owns the signals (it drops the databases
  // first), so the app's listeners go.
  (app as unknown as { unsubscribeFromProcessSignals(): void }).unsubscribeFromProcessSignals();
  try {
    await app.listen(0, '127.0.0.1');
  } catch (e) {
    await app.close();
    throw e;
  }
  const port = (app.getHttpServer() as { address(): AddressInfo }).address().port;
  const httpUrl = `http://127.0.0.1:${port}/graphql`;
  return {
    app,
    config,
    dataSource: app.get(DataSource),
    httpUrl,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    gql: new GraphQLClient(httpUrl, db.tokens.admin ?? null),
    close: () => app.close(),
  };
}

/**
 * Resolves once the app's pool has had nothing to do for `quietMs`: every connection idle and
 * nobody waiting for one. A subscription's start phase may still be reading after its client
 * got its first frame (runEvents checks the run after its replay); a measurement that starts
 * then would count that tail as its own.
 */
export async function untilPoolIdle(app: BenchApp, quietMs = 50, timeoutMs = 60_000): Promise<void> {
  const pool = (app.dataSource.driver as unknown as { master: PoolStats }).master;
  const deadline = Date.now() + timeoutMs;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    const busy = pool.waitingCount > 0 || pool.idleCount < pool.totalCount;
    if (busy) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
