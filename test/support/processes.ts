// Child processes for the multi-process e2e tests (worker-process, scale, crash): the compiled
// entry points (`node dist/src/main.js [--api-only]`, `node dist/src/worker.js`, the CLI) run
// as users run them, against a test database. Every process started here is killed when the
// test file ends (`killAll` in afterAll, and at exit as a last resort).
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { StateVault } from '../../src/modules/runs';
import { RunsRepository } from '../../src/modules/runs/persistence/runs.repository';
import { until } from './runs';
import { createTestDatabase, demoTokens, openDataSource, type TestDatabase } from './test-database';
import { TEST_STATE_KEY, usingPostgres } from './test-env';

export const ROOT = resolve(__dirname, '..', '..');
export const WORKER = join(ROOT, 'dist', 'src', 'worker.js');
export const SERVER = join(ROOT, 'dist', 'src', 'main.js');
export const CLI = join(ROOT, 'dist', 'src', 'cli.js');
/** Written after a successful build; a later build is skipped while no file in src/ is newer. */
const BUILD_STAMP = join(ROOT, 'dist', '.e2e-build-stamp');

export interface Exited {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Spawned {
  readonly child: ChildProcess;
  readonly exited: Promise<Exited>;
  output(): string;
  /** True until the process exited. */
  alive(): boolean;
}

const spawned = new Set<Spawned>();

/** Newest modification time of a file under a folder (ms). */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const t = entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs;
    if (t > newest) newest = t;
  }
  return newest;
}

/**
 * Builds dist/ (`tsc -p tsconfig.build.json`) unless a build of this helper already ran after
 * the last change in src/ (several test files spawn processes in one jest run). Errors outside
 * the spawned entry points are others' work in progress: warned, not fatal.
 */
export function build(): void {
  const fresh =
    existsSync(BUILD_STAMP) &&
    existsSync(WORKER) &&
    existsSync(SERVER) &&
    existsSync(CLI) &&
    statSync(BUILD_STAMP).mtimeMs >
      Math.max(newestUnder(join(ROOT, 'src')), newestUnder(join(ROOT, 'migrations')));
  if (fresh) return;
  const tsc = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const own = tsc.stdout.split('\n').filter((l) => /^src\/(worker|main|cli|modules\/worker)/.test(l));
  if (own.length > 0 || !existsSync(WORKER) || !existsSync(SERVER) || !existsSync(CLI)) {
    throw new Error(`building the entry points failed:\n${tsc.stdout}${tsc.stderr}`);
  }
  if (tsc.status !== 0) console.warn(`tsc reported errors elsewhere:\n${tsc.stdout}`);
  else writeFileSync(BUILD_STAMP, new Date().toISOString());
}

/** Runs a compiled entry point with only the environment given (plus PATH). */
export function start(script: string, args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let running = true;
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<Exited>((done) =>
    child.on('exit', (code, signal) => {
      running = false;
      done({ code, signal });
    }),
  );
  const p: Spawned = { child, exited, output: () => out, alive: () => running };
  spawned.add(p);
  void exited.then(() => spawned.delete(p));
  return p;
}

/** SIGKILLs every process started here that is still running and waits for their exits. */
export async function killAll(): Promise<void> {
  const left = [...spawned];
  for (const p of left) p.child.kill('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}

// why: a jest worker that is torn down without afterAll (a timeout in beforeAll) must not
// leave servers and workers running against a dropped database.
process.once('exit', () => {
  for (const p of spawned) p.child.kill('SIGKILL');
});

/** Runs the CLI to its end. */
export async function cli(args: string[], env: Record<string, string>): Promise<Exited & { out: string }> {
  const run = start(CLI, args, env);
  const exited = await run.exited;
  return { ...exited, out: run.output() };
}

/** Waits for a process to exit, killing it (and failing) past the deadline. */
export async function exitOf(p: Spawned, ms: number): Promise<Exited> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      fail(new Error(`still running after ${ms} ms:\n${p.output()}`));
    }, ms);
  });
  try {
    return await Promise.race([p.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGKILLs a process (kill -9) and waits until it is gone. */
export async function kill9(p: Spawned): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

/**
 * A server process (`main.js`, with `--api-only` unless `withWorker`) on a port the system
 * picks as it listens (PORT=0), read from the URL it prints: a port probed free beforehand can be
 * taken by another suite's outgoing connection before the child binds it (EADDRINUSE).
 */
export async function startServer(
  env: Record<string, string>,
  options: { withWorker?: boolean } = {},
): Promise<Spawned & { port: number }> {
  const args = options.withWorker ? [] : ['--api-only'];
  const p = start(SERVER, args, { ...env, HOST: '127.0.0.1', PORT: '0' });
  try {
    await until(() => /Countersign is running/.test(p.output()) || !p.alive(), 60_000, 'the API instance');
  } catch (e) {
    p.child.kill('SIGKILL');
    throw e;
  }
  if (!p.alive()) throw new Error(`the API instance exited:\n${p.output()}`);
  const printed = /GraphQL: +http:\/\/127\.0\.0\.1:(\d+)\/graphql/.exec(p.output());
  if (!printed) throw new Error(`the API instance printed no URL:\n${p.output()}`);
  return Object.assign(p, { port: Number(printed[1]) });
}

/** A worker process (`worker.js`), returned once its heartbeat row is written. */
export async function startWorker(env: Record<string, string>, ds: DataSource): Promise<Spawned> {
  const p = start(WORKER, [], env);
  try {
    await until(
      async () =>
        !p.alive() ||
        (await ds.query<unknown[]>(`SELECT 1 FROM worker_heartbeat WHERE name = $1`, [workerName(p)]))
          .length === 1,
      60_000,
      'the worker heartbeat',
    );
  } catch (e) {
    p.child.kill('SIGKILL');
    throw e;
  }
  if (!p.alive()) throw new Error(`the worker exited:\n${p.output()}`);
  return p;
}

/** The heartbeat name and `claimed_by` of a worker process. */
export function workerName(p: Spawned): string {
  return `worker:${hostname()}:${p.child.pid}`;
}

/** The `claimed_by` of an API process's inline continuations. */
export function apiName(p: Spawned): string {
  return `api:${hostname()}:${p.child.pid}`;
}

export interface GqlResult<T> {
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/** A GraphQL request over HTTP to a server process, as a demo user. */
export async function gqlAt<T>(
  port: number,
  as: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GqlResult<T>> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${demoTokens()[as]}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GqlResult<T>;
}

/** Inserts a configuration of the scripted provider with these rounds; returns its id. */
export async function scriptedConfiguration(
  ds: DataSource,
  identifier: string,
  rounds: unknown[],
  maxIterations = 5,
): Promise<number> {
  const [row] = await ds.query<Array<{ id: number }>>(
    `INSERT INTO configuration (identifier, name, provider, model, provider_options, system_prompt,
       is_active, require_second_approver, max_iterations, privacy_level)
     VALUES ($1, $1, 'scripted', 'scripted', $2, 'Test.', true, false, $3, 'METADATA') RETURNING id`,
    [identifier, JSON.stringify({ rounds }), maxIterations],
  );
  return row!.id;
}

/** Inserts a QUEUED run the way a queued start does: a sealed `start` checkpoint, no lease. */
export async function queueRun(ds: DataSource, vault: StateVault, configurationId: number): Promise<string> {
  const [owner] = await ds.query<Array<{ id: number }>>(`SELECT id FROM app_user WHERE username = 'alice'`);
  const id = randomUUID();
  await new RunsRepository(ds).insertQueued({
    id,
    configurationId,
    ownerId: owner!.id,
    workspaceId: 0,
    subjectPageId: null,
    subjectLanguageId: null,
    maxIterations: 5,
    checkpoint: vault.seal(id, { v: 1, kind: 'start', prompt: 'Go' }),
  });
  return id;
}

export async function runRow(ds: DataSource, id: string): Promise<Record<string, any>> {
  const rows: Array<Record<string, any>> = await ds.query('SELECT * FROM run WHERE id = $1', [id]);
  return rows[0]!;
}

export const heartbeatRows = (ds: DataSource): Promise<Array<{ worker_id: string; name: string }>> =>
  ds.query('SELECT worker_id, name FROM worker_heartbeat');

/** Where the multi-process tests need Redis (REDIS_URL), they skip without it, saying so. */
export const redisUrl = (): string | null => process.env.REDIS_URL || null;

/**
 * A test that needs PostgreSQL (several processes share one database) and Redis (REDIS_URL:
 * events across processes); skipped with a note where either is missing.
 */
export function itOnPostgresAndRedis(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (!usingPostgres()) {
    it.skip(`${name} [skipped: needs PostgreSQL (DATABASE_URL); PGlite is one session]`, fn, timeout);
  } else if (!redisUrl()) {
    it.skip(`${name} [skipped: needs Redis (REDIS_URL) for events across processes]`, fn, timeout);
  } else {
    it(name, fn, timeout);
  }
}

/**
 * Logs every row written into `page_text` (INSERT or UPDATE) with its transaction, by trigger.
 * A first write into a workspace is two statements (the copy of the live text, then the
 * change) in one transaction, so writes are counted as transactions.
 */
export async function installWriteCounter(ds: DataSource): Promise<void> {
  await ds.query(`CREATE TABLE IF NOT EXISTS test_page_text_writes (
      page_id int NOT NULL, workspace_id int NOT NULL, op text NOT NULL, xid bigint NOT NULL DEFAULT txid_current(),
      at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await ds.query(`CREATE OR REPLACE FUNCTION test_count_page_text_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO test_page_text_writes (page_id, workspace_id, op) VALUES (NEW.page_id, NEW.workspace_id, TG_OP);
        RETURN NEW;
      END $$`);
  await ds.query(`DROP TRIGGER IF EXISTS test_count_page_text_write ON page_text`);
  await ds.query(`CREATE TRIGGER test_count_page_text_write AFTER INSERT OR UPDATE ON page_text
      FOR EACH ROW EXECUTE FUNCTION test_count_page_text_write()`);
}

/** Transactions that wrote into `page_text` of one workspace (logged by `installWriteCounter`). */
export async function pageWrites(ds: DataSource, workspaceId: number): Promise<number> {
  const [row] = await ds.query<Array<{ n: number }>>(
    'SELECT count(DISTINCT xid)::int AS n FROM test_page_text_writes WHERE workspace_id = $1',
    [workspaceId],
  );
  return row!.n;
}

/** Step kinds of a run in sequence order. */
export async function stepKinds(ds: DataSource, runId: string): Promise<string[]> {
  const rows = await ds.query<Array<{ kind: string }>>(
    'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
    [runId],
  );
  return rows.map((r) => r.kind);
}

/**
 * The environment of a spawned API or worker for the fault tests: the durable path and a short
 * lease for every process (the lease is taken by the process that claims).
 */
export function faultEnv(
  databaseUrl: string,
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DECISION_PATH: 'durable',
    RUN_LEASE_SECONDS: '2',
    REAPER_INTERVAL_SECONDS: '1',
    ...extra,
  };
}

/** What a suite of child-process tests works with (`useProcessSuite`); read inside tests only. */
export interface ProcessSuite {
  /** This test's own database. */
  readonly db: TestDatabase;
  /** A data source on it (a pool of 4), with the page-write counter installed. */
  readonly ds: DataSource;
  /** The processes' DATA_DIR, under a temporary folder removed after the suite. */
  readonly dataDir: string;
}

/**
 * For a describe block of child-process tests on PostgreSQL and Redis (skipped elsewhere):
 * builds dist/ once, gives each test a fresh database and data source with the page-write
 * counter, kills every process it started after each test, and removes the temporary folder
 * after the suite. The suite's own hooks, declared after this call, run after these.
 */
export function useProcessSuite(tempPrefix: string): ProcessSuite {
  const temp = mkdtempSync(join(tmpdir(), tempPrefix));
  const ready = (): boolean => usingPostgres() && redisUrl() !== null;
  let db: TestDatabase | null = null;
  let ds: DataSource | null = null;
  beforeAll(() => {
    if (ready()) build();
  }, 240_000);
  beforeEach(async () => {
    if (!ready()) return;
    db = await createTestDatabase();
    ds = await openDataSource(db, 4);
    await installWriteCounter(ds);
  });
  afterEach(async () => {
    await killAll();
    await ds?.destroy();
    await db?.dispose();
    ds = null;
    db = null;
  });
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  const opened = <T>(value: T | null, what: string): T => {
    if (value === null) throw new Error(`useProcessSuite: ${what} is read outside a test`);
    return value;
  };
  return {
    get db() {
      return opened(db, 'the database');
    },
    get ds() {
      return opened(ds, 'the data source');
    },
    dataDir: join(temp, 'data'),
  };
}
