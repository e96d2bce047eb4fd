import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onCleanup } from './cleanup';
import type { BenchDatabase } from './database';
import { GraphQLClient } from './graphql';
import { sleep } from './stats';
import { freePort } from './free-port';

/** The built server entry point (`npm run bench` builds first): dist/src/main.js. */
const MAIN = join(__dirname, '..', '..', 'src', 'main.js');
/** The V8 setting production starts the API with (`npm start`, the Dockerfile, docker-compose.yml). */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released for the child). */

/** Resident set figures of a process from /proc/<pid>/status, in MB (Linux). */
export interface Resident {
  /** VmRSS: resident now. */
  readonly rssMb: number;
  /** VmHWM: the peak resident set so far. */
  readonly peakMb: number;
}

export function residentOf(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** The server as its own process (`node dist/src/main.js --api-only`), on a bench database. */
export interface ApiProcess {
  readonly pid: number;
  readonly httpUrl: string;
  readonly wsUrl: string;
  /** GraphQL over HTTP as the demo admin; `.as(token)` for another user. */
  readonly gql: GraphQLClient;
  /** The last lines the process wrote (for failures). */
  output(): string;
  /** SIGTERM (the server's graceful shutdown), SIGKILL after 10 s; waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts the API as production runs it (its V8 flags, NODE_ENV=production, PostgreSQL, no migrations or
 * seed at boot: the database is prepared), in its own process, so its resident set is the
 * server's alone; resolves once `GET /health` answers 200.
 */
export async function startApiProcess(
  db: BenchDatabase,
  env: Record<string, string> = {},
): Promise<ApiProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npm run bench builds)`);
  if (!existsSync('/proc/self/status')) throw new Error('reading a resident set needs /proc (Linux)');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, MAIN, '--api-only'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      DATABASE_URL: db.url,
      STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      DB_MIGRATE: 'false',
      SEED_DEMO: 'false',
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '1000000',
      // why: the scenarios start many runs per user and leave many waiting.
      RUN_STARTS_PER_MINUTE: '1000000',
      RUNS_MAX_WAITING_PER_USER: '100000',
      // why: the scenarios hold thousands of graphql-ws connections as one user (bob).
      WS_MAX_CONNECTIONS_PER_USER: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the API process exited (${child.exitCode}):\n${lines.join('\n')}`);
    const ok = await fetch(`${base}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API process did not answer /health in 60 s:\n${lines.join('\n')}`);
    }
    await sleep(100);
  }
  const httpUrl = `${base}/graphql`;
  return {
    pid: child.pid!,
    httpUrl,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    gql: new GraphQLClient(httpUrl, db.tokens.admin ?? null),
    output: () => lines.join('\n'),
    stop,
  };
}
