// Several processes on one database (docs/decisions.md "Two paths, one claim", "Workers
// and their heartbeat"; 30-streaming.md "Across instances"): compiled API-only instances and
// worker processes started as users start them, sharing PostgreSQL and Redis.
import { createClient } from 'graphql-ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import WebSocket from 'ws';
import {
  apiName,
  build,
  gqlAt,
  installWriteCounter,
  itOnPostgresAndRedis,
  killAll,
  pageWrites,
  redisUrl,
  startServer,
  startWorker,
  stepKinds,
  workerName,
  type Spawned,
} from '../support/processes';
import { collect, until } from '../support/runs';
import { bootTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, demoTokens, openDataSource, type TestDatabase } from '../support/test-database';
import { TEST_STATE_KEY, usingPostgres } from '../support/test-env';
import type { RunProgressEvent } from '../support/generated/schema';

const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
const PROGRESS = `subscription($id: ID!) { runProgress(runId: $id) { kind status stepCount turn keepAlive } }`;

type ProgressEvent = Pick<RunProgressEvent, 'kind' | 'status' | 'stepCount' | 'turn' | 'keepAlive'>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function one<T>(ds: DataSource, sql: string, params: unknown[] = []): Promise<T> {
  const rows = await ds.query<T[]>(sql, params);
  return rows[0]!;
}

/** Ids the tests need: the demo-editor configuration and the /products page. */
async function editorAndPage(ds: DataSource): Promise<{ configurationId: string; subjectPageId: string }> {
  const c = await one<{ id: number }>(ds, `SELECT id FROM configuration WHERE identifier = 'demo-editor'`);
  const p = await one<{ id: number }>(ds, `SELECT id FROM page WHERE slug = '/products'`);
  return { configurationId: String(c.id), subjectPageId: String(p.id) };
}

async function status(ds: DataSource, id: string): Promise<string> {
  return (await one<{ status: string }>(ds, 'SELECT status FROM run WHERE id = $1', [id])).status;
}

/** Starts a run through an API process and waits until it waits for approval; its digest. */
async function waitingRunAt(
  ds: DataSource,
  port: number,
  input: Record<string, unknown>,
): Promise<{ id: string; digest: string }> {
  const started = await gqlAt<{ startRun: { id: string } }>(port, 'alice', START, { input });
  expect(started.errors).toBeUndefined();
  const id = started.data!.startRun.id;
  await until(async () => (await status(ds, id)) === 'WAITING_FOR_APPROVAL', 30_000, 'the run to wait');
  const row = await one<{ turn_digest: string }>(ds, 'SELECT turn_digest FROM run WHERE id = $1', [id]);
  return { id, digest: row.turn_digest };
}

/** A stand-in for a live worker's heartbeat, so an API instance records decisions DURABLE. */
const pretendLiveWorker = (ds: DataSource): Promise<unknown> =>
  ds.query(
    `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-stand-in', 'worker:test:0')
     ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
  );

describe('several processes on one database (compiled, in child processes)', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-scale-'));
  let db: TestDatabase | null = null;
  let ds: DataSource | null = null;

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: db!.url!,
    REDIS_URL: redisUrl()!,
    STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
    DATA_DIR: join(temp, 'data'),
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DECISION_PATH: 'durable',
    ...extra,
  });

  beforeAll(() => {
    if (usingPostgres() && redisUrl()) build();
  }, 240_000);
  beforeEach(async () => {
    if (!usingPostgres() || !redisUrl()) return;
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

  itOnPostgresAndRedis(
    'a decision taken on instance A is carried out by a worker while a subscriber on instance B sees every step',
    async () => {
      const [a, b] = await Promise.all([startServer(env()), startServer(env())]);
      const worker = await startWorker(env(), ds!);
      const ids = await editorAndPage(ds!);
      const run = await waitingRunAt(ds!, a.port, { ...ids, prompt: 'SEO please', workspaceId: 11 });

      const client = createClient({
        url: `ws://127.0.0.1:${b.port}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: true,
        connectionParams: { authorization: `Bearer ${demoTokens().alice}` },
      });
      try {
        const progress = collect<{ runProgress: ProgressEvent }>(client, PROGRESS, { id: run.id });
        await until(() => progress.events.length > 0, 10_000, 'the snapshot on B');
        const approved = await gqlAt<{ approveRun: { path: string; run: { status: string } } }>(
          a.port,
          'carol',
          APPROVE,
          { input: { runId: run.id, turnDigest: run.digest } },
        );
        expect(approved.errors).toBeUndefined();
        expect(approved.data!.approveRun).toEqual({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
        await Promise.race([
          progress.done,
          sleep(30_000).then(() => {
            throw new Error(`no SETTLED on B: ${JSON.stringify(progress.events)}`);
          }),
        ]);
        expect(progress.errors).toEqual([]);

        const stored = await one<{ status: string; step_count: number; claimed_by: string | null }>(
          ds!,
          'SELECT status, step_count, claimed_by FROM run WHERE id = $1',
          [run.id],
        );
        expect(stored.status).toBe('COMPLETED');
        const events = progress.events.map((e) => e.runProgress);
        const [snapshot, ...rest] = events;
        expect(snapshot).toMatchObject({
          kind: 'PROGRESS',
          status: 'WAITING_FOR_APPROVAL',
          keepAlive: false,
        });
        const last = rest[rest.length - 1]!;
        expect(last).toMatchObject({ kind: 'SETTLED', status: 'COMPLETED', stepCount: stored.step_count });
        // Every step of the continuation reached B, once, in order (keep-alives and the
        // DECISION_RECORDED status change carry no new step).
        const stepCounts = rest
          .filter((e) => e.kind === 'PROGRESS' && !e.keepAlive && e.status === 'RUNNING')
          .map((e) => e.stepCount);
        const expected = Array.from(
          { length: stored.step_count - snapshot!.stepCount },
          (_, i) => snapshot!.stepCount + 1 + i,
        );
        expect(stepCounts).toEqual(expected);
        expect(rest.filter((e) => e.kind === 'SETTLED')).toHaveLength(1);

        // Exactly one write, done by the worker (not by either API instance).
        const kinds = await stepKinds(ds!, run.id);
        expect(kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
        expect(kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
        expect(await pageWrites(ds!, 11)).toBe(1);
        const decision = await one<{ path: string; outcome: string }>(
          ds!,
          'SELECT path, outcome FROM decision WHERE run_id = $1',
          [run.id],
        );
        expect(decision).toEqual({ path: 'DURABLE', outcome: 'COMPLETED' });
        expect(worker.output()).not.toMatch(/"level":(50|60)/);
        for (const api of [a, b]) expect(api.output()).not.toMatch(/"level":(50|60)/);
      } finally {
        await client.dispose();
      }
    },
    120_000,
  );

  itOnPostgresAndRedis(
    'with no worker alive, an API instance takes an overdue recorded decision within the pickup time',
    async () => {
      const api = await startServer(env({ DECISION_PICKUP_SECONDS: '2' }));
      const ids = await editorAndPage(ds!);
      // No live worker: the start runs inline on the API instance.
      const run = await waitingRunAt(ds!, api.port, { ...ids, prompt: 'SEO please', workspaceId: 12 });
      await pretendLiveWorker(ds!);
      const approved = await gqlAt<{ approveRun: { path: string; run: { status: string } } }>(
        api.port,
        'carol',
        APPROVE,
        { input: { runId: run.id, turnDigest: run.digest } },
      );
      const acknowledged = Date.now();
      expect(approved.data?.approveRun).toEqual({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
      // The worker it was recorded for is gone: its heartbeat goes stale.
      await ds!.query(`UPDATE worker_heartbeat SET last_seen = now() - interval '1 hour'`);

      await until(async () => (await status(ds!, run.id)) === 'COMPLETED', 20_000, 'the run to complete');
      const elapsed = Date.now() - acknowledged;
      // pickup (2 s) + the reconcile interval (2 s) + the continuation, with room for a busy machine.
      expect(elapsed).toBeLessThan(12_000);
      const timing = await one<{ waited: number }>(
        ds!,
        `SELECT extract(epoch FROM s.created_at - d.decided_at)::float8 AS waited
           FROM decision d JOIN run_step s ON s.run_id = d.run_id AND s.kind = 'APPROVAL'
          WHERE d.run_id = $1`,
        [run.id],
      );
      // Not before the pickup time: the reconcile waits DECISION_PICKUP_SECONDS.
      expect(timing.waited).toBeGreaterThanOrEqual(1.9);
      expect(api.output()).toMatch(/no live worker: took 1 overdue recorded decision\(s\) here/);
      expect(apiName(api)).toMatch(/^api:/);
      const kinds = await stepKinds(ds!, run.id);
      expect(kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
      expect(await pageWrites(ds!, 12)).toBe(1);
      const decision = await one<{ path: string; outcome: string }>(
        ds!,
        'SELECT path, outcome FROM decision WHERE run_id = $1',
        [run.id],
      );
      expect(decision).toEqual({ path: 'DURABLE', outcome: 'COMPLETED' });
    },
    90_000,
  );
});

describe('200 recorded decisions across 3 worker processes', () => {
  const RUNS = 200;
  const temp = mkdtempSync(join(tmpdir(), 'cs-scale-'));
  let t: TestApp | null = null;
  let workers: Spawned[] = [];

  beforeAll(() => {
    if (usingPostgres() && redisUrl()) build();
  }, 240_000);
  afterAll(async () => {
    await killAll();
    await t?.close();
    rmSync(temp, { recursive: true, force: true });
  });

  /** Runs `fn` over `items`, `width` at a time. */
  async function inBatches<T>(
    items: readonly T[],
    width: number,
    fn: (item: T) => Promise<void>,
  ): Promise<void> {
    for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
  }

  itOnPostgresAndRedis(
    'each decision is carried out exactly once, no run claimed twice',
    async () => {
      // The API here is in-process (it records the decisions); the workers are processes.
      t = await bootTestApp({
        DECISION_PATH: 'durable',
        WORKER_ENABLED: 'false',
        // why: the in-process instance must not reconcile the decisions itself.
        DECISION_PICKUP_SECONDS: '86400',
      });
      const ds = t.dataSource;
      await installWriteCounter(ds);
      await ds.query(`CREATE TABLE test_claims (run_id uuid NOT NULL, claimed_by text NOT NULL,
          at timestamptz NOT NULL DEFAULT clock_timestamp())`);
      await ds.query(`CREATE FUNCTION test_log_claim() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO test_claims (run_id, claimed_by) VALUES (NEW.id, NEW.claimed_by); RETURN NEW; END $$`);
      await ds.query(`CREATE TRIGGER test_log_claim AFTER UPDATE ON run FOR EACH ROW
          WHEN (NEW.status = 'RUNNING' AND OLD.status IS DISTINCT FROM 'RUNNING') EXECUTE FUNCTION test_log_claim()`);
      const ids = await editorAndPage(ds);

      // 200 waiting runs, started inline (no worker live), each in its own workspace so that no
      // write changes another run's preview.
      await ds.query('DELETE FROM worker_heartbeat');
      const runIds: string[] = [];
      const workspaces = Array.from({ length: RUNS }, (_, i) => 1000 + i);
      await inBatches(workspaces, 20, async (workspaceId) => {
        const res = await t!.gql<{ startRun: { id: string } }>(
          START,
          { input: { ...ids, prompt: 'SEO', workspaceId } },
          'alice',
        );
        if (!res.data) throw new Error(JSON.stringify(res.errors));
        runIds.push(res.data.startRun.id);
      });
      await until(
        async () =>
          (
            await ds.query<Array<{ n: number }>>(
              `SELECT count(*)::int AS n FROM run WHERE status = 'WAITING_FOR_APPROVAL' AND id = ANY($1)`,
              [runIds],
            )
          )[0]!.n === RUNS,
        60_000,
        'all runs to wait',
      );
      await ds.query('DELETE FROM test_claims');

      // 200 decisions recorded through the API (DURABLE: a stand-in heartbeat is live).
      await pretendLiveWorker(ds);
      const digests = new Map(
        (
          await ds.query<Array<{ id: string; turn_digest: string }>>(
            'SELECT id, turn_digest FROM run WHERE id = ANY($1)',
            [runIds],
          )
        ).map((r) => [r.id, r.turn_digest]),
      );
      const paths: string[] = [];
      await inBatches(runIds, 20, async (runId) => {
        const res = await t!.gql<{ approveRun: { path: string } }>(
          APPROVE,
          { input: { runId, turnDigest: digests.get(runId) } },
          'carol',
        );
        paths.push(res.data?.approveRun.path ?? JSON.stringify(res.errors));
      });
      expect(paths.filter((p) => p === 'DURABLE')).toHaveLength(RUNS);
      await ds.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'test-stand-in'`);

      const env = {
        DATABASE_URL: t.db.url!,
        REDIS_URL: redisUrl()!,
        STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
        DATA_DIR: join(temp, 'data'),
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
      };
      workers = await Promise.all([startWorker(env, ds), startWorker(env, ds), startWorker(env, ds)]);
      await until(
        async () =>
          (
            await ds.query<Array<{ n: number }>>(
              `SELECT count(*)::int AS n FROM run r WHERE r.status NOT IN ('DECISION_RECORDED', 'RUNNING') AND r.id = ANY($1)
                  AND NOT EXISTS (SELECT 1 FROM decision d WHERE d.run_id = r.id AND d.outcome IS NULL)`,
              [runIds],
            )
          )[0]!.n === RUNS,
        180_000,
        'every decision to be carried out',
      );

      const rows = await ds.query<
        Array<{
          id: string;
          status: string;
          step_count: number;
          steps: number;
          distinct_sequences: number;
          max_sequence: number;
          approvals: number;
          writes: number;
          decisions: number;
          completed_decisions: number;
          claims: number;
          claimers: string[];
          workspace_id: number;
        }>
      >(
        `SELECT r.id, r.status, r.step_count, r.workspace_id,
                (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id) AS steps,
                (SELECT count(DISTINCT sequence)::int FROM run_step s WHERE s.run_id = r.id) AS distinct_sequences,
                (SELECT max(sequence)::int FROM run_step s WHERE s.run_id = r.id) AS max_sequence,
                (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'APPROVAL') AS approvals,
                (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'TOOL_WRITE') AS writes,
                (SELECT count(*)::int FROM decision d WHERE d.run_id = r.id) AS decisions,
                (SELECT count(*)::int FROM decision d WHERE d.run_id = r.id AND d.path = 'DURABLE'
                    AND d.outcome = 'COMPLETED') AS completed_decisions,
                (SELECT count(*)::int FROM test_claims c WHERE c.run_id = r.id) AS claims,
                (SELECT coalesce(array_agg(c.claimed_by), '{}') FROM test_claims c WHERE c.run_id = r.id) AS claimers
           FROM run r WHERE r.id = ANY($1)`,
        [runIds],
      );
      expect(rows).toHaveLength(RUNS);
      const problems = rows.flatMap((r) => {
        const p: string[] = [];
        if (r.status !== 'COMPLETED') p.push(`status ${r.status}`);
        if (r.steps !== r.step_count || r.distinct_sequences !== r.steps || r.max_sequence !== r.steps)
          p.push(`steps ${r.steps} / step_count ${r.step_count} / distinct ${r.distinct_sequences}`);
        if (r.approvals !== 1) p.push(`${r.approvals} APPROVAL steps`);
        if (r.writes !== 1) p.push(`${r.writes} TOOL_WRITE steps`);
        if (r.decisions !== 1 || r.completed_decisions !== 1) p.push(`${r.decisions} decisions`);
        if (r.claims !== 1 || !r.claimers[0]?.startsWith('worker:')) p.push(`claims ${r.claimers.join(',')}`);
        return p.length ? [`${r.id}: ${p.join(', ')}`] : [];
      });
      expect(problems).toEqual([]);
      const writes = await ds.query<Array<{ workspace_id: number; n: number }>>(
        `SELECT workspace_id, count(DISTINCT xid)::int AS n FROM test_page_text_writes GROUP BY workspace_id`,
      );
      expect(writes).toHaveLength(RUNS);
      expect(writes.every((w) => w.n === 1)).toBe(true);
      // The work was shared: more than one worker claimed decisions.
      const byWorker = new Map<string, number>();
      for (const r of rows) byWorker.set(r.claimers[0]!, (byWorker.get(r.claimers[0]!) ?? 0) + 1);
      expect([...byWorker.keys()].every((k) => workers.some((w) => workerName(w) === k))).toBe(true);
      expect(byWorker.size).toBeGreaterThan(1);
    },
    420_000,
  );
});
