// Faults around a continuation (issue 7, item 3; test/e2e/faults-*.e2e-spec.ts), with the
// compiled API and worker in child processes: the API killed right after a decision's receipt,
// PostgreSQL restarted in the middle of a continuation (a server of the test's own), Redis gone
// (a server of the test's own), and a worker paused past its lease. What users rely on is
// counted in the database: every write once, steps without gaps or duplicates, one decision per
// turn, nothing RUNNING without a lease.
//
// PostgreSQL only: the cases are `itOnPostgres` (skipped with a note under PGlite), the build
// and the processes start only where DATABASE_URL is set. This module holds what the faults
// files share: the harness (a test database, runs waiting for a decision, the checks after a
// fault) and the API instance with two workers most of them start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  build,
  faultEnv,
  gqlAt,
  installWriteCounter,
  killAll,
  pageWrites,
  startServer,
  startWorker,
  stepKinds,
  workerName,
  type Spawned,
} from './processes';
import {
  postgresBinaries,
  redisServerBinary,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from './private-services';
import { one, runState, TERMINAL } from './run-state';
import { until } from './runs';
import { createTestDatabase, itOnPostgres, type TestDatabase } from './test-database';
import { usingPostgres } from './test-env';

const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
export const WRITE = { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Fault-proof title' } }] };

/** Like `itOnPostgres`, and skipped with a note where a server binary the test needs is missing. */
export function itOnPostgresWith(
  missing: string | null,
  name: string,
  fn: jest.ProvidesCallback,
  timeout: number,
): void {
  if (missing && usingPostgres()) it.skip(`${name} [skipped: ${missing}]`, fn, timeout);
  else itOnPostgres(name, fn, timeout);
}

/** Logs which process's lease wrote each step (claimed_by at insert time), by trigger. */
async function installStepLog(ds: DataSource): Promise<void> {
  await ds.query(`CREATE TABLE IF NOT EXISTS test_step_log (
      run_id uuid NOT NULL, sequence int NOT NULL, kind text NOT NULL, claimed_by text,
      at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await ds.query(`CREATE OR REPLACE FUNCTION test_log_step() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO test_step_log (run_id, sequence, kind, claimed_by)
          SELECT NEW.run_id, NEW.sequence, NEW.kind, r.claimed_by FROM run r WHERE r.id = NEW.run_id;
        RETURN NEW;
      END $$`);
  await ds.query(`DROP TRIGGER IF EXISTS test_log_step ON run_step`);
  await ds.query(`CREATE TRIGGER test_log_step AFTER INSERT ON run_step
      FOR EACH ROW EXECUTE FUNCTION test_log_step()`);
}

/** The state of a faults file and what its cases do with it. */
export interface Faults {
  readonly pgBin: ReturnType<typeof postgresBinaries>;
  readonly redisBin: ReturnType<typeof redisServerBinary>;
  db: TestDatabase | null;
  ds: DataSource | null;
  page: string;
  privatePg: PrivatePostgres | null;
  privateRedis: PrivateRedis | null;
  /** The environment of an API or worker process on `databaseUrl`, its data in the temp folder. */
  env(databaseUrl: string, extra?: Record<string, string>): Record<string, string>;
  open(url: string): Promise<DataSource>;
  /** A test database with the write counter and the step log, and its /products page id. */
  prepareDatabase(): Promise<void>;
  /** Ends the processes and the private servers, and drops the test database. */
  cleanUp(): Promise<void>;
  /** Starts a run through an API process and waits until it waits for approval. */
  waitingRun(port: number, configurationId: number, workspaceId: number): Promise<string>;
  /** Approves as carol with the digest shown; the receipt. */
  approve(
    port: number,
    id: string,
    path?: 'INLINE' | 'DURABLE',
  ): Promise<{ path: string; run: { status: string } }>;
  settled(id: string, ms?: number): Promise<void>;
  /**
   * What a user relies on after any fault: the run's steps numbered 1..step_count without a gap
   * or a duplicate; the write done once (TOOL_WRITE step and page_text transaction); one
   * APPROVAL step and one decision row for the turn, its outcome recorded; no lease left.
   */
  expectCarriedOutOnce(id: string, workspaceId: number): Promise<void>;
  expectNothingStranded(): Promise<void>;
  /** Waits until the claimer of a run has done its write and sits in the first slow round. */
  inFirstSlowRound(id: string, workspaceId: number): Promise<void>;
}

/** The harness of a faults file: builds the entry points in beforeAll (on PostgreSQL only). */
export function faultsHarness(): Faults {
  const temp = mkdtempSync(join(tmpdir(), 'cs-faults-'));
  beforeAll(() => {
    if (usingPostgres()) build();
  }, 240_000);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  const h: Faults = {
    pgBin: postgresBinaries(),
    redisBin: redisServerBinary(),
    db: null,
    ds: null,
    page: '',
    privatePg: null,
    privateRedis: null,

    env: (databaseUrl, extra = {}) => faultEnv(databaseUrl, join(temp, 'data'), extra),

    async open(url) {
      const d = new DataSource({ type: 'postgres', url, extra: { max: 3 } });
      await d.initialize();
      return d;
    },

    async prepareDatabase() {
      h.db = await createTestDatabase();
      h.ds = await h.open(h.db.url!);
      await installWriteCounter(h.ds);
      await installStepLog(h.ds);
      h.page = String((await one<{ id: number }>(h.ds, `SELECT id FROM page WHERE slug = '/products'`)).id);
    },

    async cleanUp() {
      await killAll();
      await h.privateRedis?.kill();
      h.privateRedis = null;
      await h.ds?.destroy();
      h.ds = null;
      await h.privatePg?.dispose();
      h.privatePg = null;
      await h.db?.dispose();
      h.db = null;
    },

    async waitingRun(port, configurationId, workspaceId) {
      const started = await gqlAt<{ startRun: { id: string } }>(port, 'alice', START, {
        input: { configurationId: String(configurationId), prompt: 'Go', subjectPageId: h.page, workspaceId },
      });
      expect(started.errors).toBeUndefined();
      const id = started.data!.startRun.id;
      await until(
        async () => (await runState(h.ds!, id)).status === 'WAITING_FOR_APPROVAL',
        30_000,
        'the run to wait for approval',
      );
      return id;
    },

    async approve(port, id, path) {
      const { turn_digest } = await one<{ turn_digest: string }>(
        h.ds!,
        'SELECT turn_digest FROM run WHERE id = $1',
        [id],
      );
      const approved = await gqlAt<{ approveRun: { path: string; run: { status: string } } }>(
        port,
        'carol',
        APPROVE,
        {
          input: { runId: id, turnDigest: turn_digest, ...(path ? { path } : {}) },
        },
      );
      expect(approved.errors).toBeUndefined();
      return approved.data!.approveRun;
    },

    settled: (id, ms = 40_000) =>
      until(async () => TERMINAL.has((await runState(h.ds!, id)).status), ms, `run ${id} to settle`),

    async expectCarriedOutOnce(id, workspaceId) {
      const ds = h.ds!;
      const run = await runState(ds, id);
      expect(run).toMatchObject({ status: 'COMPLETED', lease_token: null, claimed_by: null });
      const sequences = (
        await ds.query<Array<{ sequence: number }>>(
          'SELECT sequence FROM run_step WHERE run_id = $1 ORDER BY sequence',
          [id],
        )
      ).map((r) => r.sequence);
      expect(sequences).toEqual(Array.from({ length: run.step_count }, (_, i) => i + 1));
      const kinds = await stepKinds(ds, id);
      expect(kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
      expect(await pageWrites(ds, workspaceId)).toBe(1);
      // Every answer of the model recorded once: a provider call cut off by the fault (a REQUEST
      // without its LLM step) is asked again by the process that took over, once per takeover.
      const unanswered =
        kinds.filter((k) => k === 'REQUEST').length - kinds.filter((k) => k === 'LLM').length;
      expect(unanswered).toBeGreaterThanOrEqual(0);
      expect(unanswered).toBeLessThanOrEqual(run.requeue_count);
      const decisions = await ds.query<Array<{ turn: number; outcome: string | null }>>(
        'SELECT turn, outcome FROM decision WHERE run_id = $1',
        [id],
      );
      expect(decisions).toEqual([{ turn: run.turn, outcome: 'COMPLETED' }]);
    },

    async expectNothingStranded() {
      const stranded = await h.ds!.query<unknown[]>(
        `SELECT id, status FROM run
          WHERE (status = 'RUNNING' AND (lease_token IS NULL OR lease_expires_at IS NULL))
             OR (status <> 'RUNNING' AND lease_token IS NOT NULL)`,
      );
      expect(stranded).toEqual([]);
    },

    async inFirstSlowRound(id, workspaceId) {
      await until(async () => (await pageWrites(h.ds!, workspaceId)) === 1, 20_000, 'the write');
      await until(
        async () => (await stepKinds(h.ds!, id)).filter((k) => k === 'REQUEST').length >= 2,
        10_000,
        'the first slow round',
      );
    },
  };
  return h;
}

/** The processes of a describe block: one API instance and two workers (set in beforeAll). */
export interface ApiAndWorkers {
  api: Spawned & { port: number };
  workers: Spawned[];
  /** The worker holding a run's lease, and the other one. */
  claimerOf(id: string): Promise<{ victim: Spawned; other: Spawned }>;
}

/**
 * One API instance and two workers on the shared PostgreSQL (a database of the file's own), with
 * a Redis of the test's own where redis-server is there; started in beforeAll, ended in afterAll.
 */
function apiAndTwoWorkers(h: Faults): ApiAndWorkers {
  const p: ApiAndWorkers = {
    api: undefined as unknown as ApiAndWorkers['api'],
    workers: [],
    async claimerOf(id) {
      const { claimed_by } = await runState(h.ds!, id);
      const victim = p.workers.find((w) => workerName(w) === claimed_by);
      if (!victim) throw new Error(`run ${id} is not held by a worker (${claimed_by})`);
      return { victim, other: p.workers.find((w) => w !== victim)! };
    },
  };

  beforeAll(async () => {
    if (!usingPostgres()) return;
    await h.prepareDatabase();
    if (h.redisBin) h.privateRedis = await startPrivateRedis(h.redisBin);
    const processEnv = h.env(h.db!.url!, h.privateRedis ? { REDIS_URL: h.privateRedis.url } : {});
    [p.api, ...p.workers] = await Promise.all([
      startServer(processEnv),
      startWorker(processEnv, h.ds!),
      startWorker(processEnv, h.ds!),
    ]);
  }, 120_000);
  afterAll(() => h.cleanUp(), 60_000);
  return p;
}

/**
 * The describe blocks of a faults file whose cases share one API instance and two workers; the
 * cases run in order on the same processes.
 */
export function onApiAndTwoWorkers(cases: (h: Faults, fleet: ApiAndWorkers) => void): void {
  describe('faults around a continuation (compiled API and worker processes)', () => {
    const h = faultsHarness();

    describe('an API instance and two worker processes', () => {
      cases(h, apiAndTwoWorkers(h));
    });
  });
}
