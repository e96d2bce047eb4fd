import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup';
import { GraphQLClient } from './graphql';
import { sleep } from './stats';
import { freePort } from './free-port';

/** The built entry points (`npm run bench` builds first). */
const DIST_SRC = join(__dirname, '..', '..', 'src');
export const SERVER_ENTRY = join(DIST_SRC, 'main.js');
export const WORKER_ENTRY = join(DIST_SRC, 'worker.js');

/** A process of the project started by the bench (a worker, or an API-only server). */
export interface BenchProcess {
  readonly pid: number;
  /** `worker:<host>:<pid>` or `api:<host>:<pid>`: its `claimed_by` on the runs it executes. */
  readonly claimName: string;
  /** The last lines it wrote (for failures). */
  output(): string;
  alive(): boolean;
  /** kill -9, and wait until it is gone. */
  kill9(): Promise<void>;
  /** SIGKILL unless it already exited (the cleanup; safe to call twice). */
  stop(): Promise<void>;
}

function launch(
  entry: string,
  args: string[],
  env: Record<string, string>,
  kind: 'api' | 'worker',
): BenchProcess {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npm run bench builds)`);
  const child: ChildProcess = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  const stop = onCleanup(async () => {
    if (!running) return;
    child.kill('SIGKILL');
    await exited;
  });
  return {
    pid: child.pid!,
    claimName: `${kind}:${hostname()}:${child.pid}`,
    output: () => lines.join('\n'),
    alive: () => running,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop,
  };
}

/**
 * A worker process (`node dist/src/worker.js`) with this environment (DATABASE_URL and the
 * state key included); resolves once `ready` says it is up (e.g. its heartbeat row exists).
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  ready: (p: BenchProcess) => Promise<boolean>,
): Promise<BenchProcess> {
  const p = launch(WORKER_ENTRY, [], { NODE_ENV: 'production', ...env }, 'worker');
  await waitUp(p, () => ready(p), 'the worker');
  return p;
}

/** An API-only server process (`node dist/src/main.js --api-only`) on a free port. */
export async function startServerProcess(
  env: Record<string, string>,
  adminToken: string | null,
): Promise<BenchProcess & { readonly gql: GraphQLClient; readonly port: number }> {
  const port = await freePort();
  const p = launch(
    SERVER_ENTRY,
    ['--api-only'],
    {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DB_MIGRATE: 'false',
      SEED_DEMO: 'false',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // why: the scenarios start many runs per user and leave many waiting.
      RUN_STARTS_PER_MINUTE: '1000000',
      RUNS_MAX_WAITING_PER_USER: '100000',
      ...env,
    },
    'api',
  );
  const health = `http://127.0.0.1:${port}/health`;
  await waitUp(
    p,
    () =>
      fetch(health).then(
        (r) => r.status === 200,
        () => false,
      ),
    'the API process',
  );
  return Object.assign(p, { gql: new GraphQLClient(`http://127.0.0.1:${port}/graphql`, adminToken), port });
}

async function waitUp(p: BenchProcess, ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!p.alive()) throw new Error(`${what} exited:\n${p.output()}`);
    if (await ready()) return;
    if (Date.now() > deadline) {
      await p.stop();
      throw new Error(`${what} was not up after 60 s:\n${p.output()}`);
    }
    await sleep(100);
  }
}
