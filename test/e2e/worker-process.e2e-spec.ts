// The worker process (`node dist/src/worker.js`) and `npm run cli -- status`, compiled and run
// as users run them: child processes against a test database (PostgreSQL for the worker; the
// embedded DATA_DIR as well for the CLI).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../src/config/app-config';
import { StateVault, WORK_CHANNEL } from '../../src/modules/runs';
import { lockDataDir } from '../../src/platform/database/pglite';
import {
  build,
  cli,
  exitOf,
  gqlAt as gql,
  heartbeatRows,
  queueRun,
  runRow,
  scriptedConfiguration,
  start,
  startServer,
  WORKER,
  type Spawned,
} from '../support/processes';
import { until } from '../support/runs';
import { createTestDatabase, itOnPostgres, openDataSource, TestDatabase } from '../support/test-database';
import { TEST_STATE_KEY, usingPostgres } from '../support/test-env';

describe('the worker process and `cli status` (compiled, in child processes)', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-worker-'));
  beforeAll(() => build(), 240_000);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('refuses to start without DATABASE_URL, saying why, with exit code 1', async () => {
    const run = start(WORKER, [], { DATA_DIR: join(temp, 'unused') });
    const exited = await exitOf(run, 30_000);
    expect(exited.code).toBe(1);
    expect(run.output()).toMatch(/needs PostgreSQL: set DATABASE_URL/);
    expect(run.output()).toMatch(/single\s+session/);
    expect(run.output()).toMatch(/already runs a worker\s+in-process/);
    expect(existsSync(join(temp, 'unused'))).toBe(false);
  });

  describe('against PostgreSQL', () => {
    let db: TestDatabase;
    let ds: DataSource;
    let vault: StateVault;
    let env: Record<string, string>;
    let worker: Spawned | null = null;

    beforeAll(async () => {
      if (!usingPostgres()) return;
      db = await createTestDatabase();
      ds = await openDataSource(db, 4);
      vault = new StateVault({ stateEncryptionKey: TEST_STATE_KEY, dataDir: temp } as AppConfig);
      env = {
        DATABASE_URL: db.url!,
        STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
        DATA_DIR: join(temp, 'pg-data'),
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        // why: a reaper pass only at start, so an expired lease stays for `status` to see.
        REAPER_INTERVAL_SECONDS: '3600',
      };
    });
    afterAll(async () => {
      worker?.child.kill('SIGKILL');
      await ds?.destroy();
      await db?.dispose();
    });

    itOnPostgres(
      'starts a worker that is live, LISTENs, and completes a queued run it is notified of',
      async () => {
        worker = start(WORKER, [], env);
        await until(async () => (await heartbeatRows(ds)).length === 1, 20_000, 'the heartbeat row');
        const [row] = await heartbeatRows(ds);
        expect(row!.worker_id).toMatch(/^[0-9a-f]{16}$/);
        expect(row!.name).toBe(`worker:${hostname()}:${worker.child.pid}`);
        await until(
          async () =>
            (
              await ds.query<unknown[]>(
                `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
                  AND application_name = 'countersign-listener' AND query = 'LISTEN countersign_work'`,
              )
            ).length === 1,
          10_000,
          'the LISTEN connection',
        );
        expect(worker.output()).toMatch(/"msg":"Countersign worker [0-9a-f]{16} started/);

        const quick = await scriptedConfiguration(ds, 'quick', [{ delayMs: 200, text: 'Done.' }]);
        const id = await queueRun(ds, vault, quick);
        await ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
        await until(async () => (await runRow(ds, id)).status === 'COMPLETED', 20_000, 'the run to complete');
        expect(await runRow(ds, id)).toMatchObject({
          status: 'COMPLETED',
          answer: 'Done.',
          lease_token: null,
          requeue_count: 0,
        });
      },
      60_000,
    );

    itOnPostgres(
      'stops a run it executes at the token cap before the next model call (BUDGET_EXHAUSTED)',
      async () => {
        const read = {
          toolCalls: [{ name: 'pages_read', arguments: {} }],
          usage: { inputTokens: 40, outputTokens: 10 },
        };
        const capped = await scriptedConfiguration(ds, 'capped', [read, read, { text: 'Done.' }]);
        await ds.query('UPDATE configuration SET max_tokens_per_run = 60 WHERE id = $1', [capped]);
        const id = await queueRun(ds, vault, capped);
        await ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
        await until(async () => (await runRow(ds, id)).status === 'COMPLETED', 20_000, 'the run to stop');
        expect(await runRow(ds, id)).toMatchObject({
          termination_reason: 'BUDGET_EXHAUSTED',
          truncated: true,
          iterations: 2,
          prompt_tokens: 80,
          completion_tokens: 20,
          lease_token: null,
        });
        const llm = await ds.query<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM run_step WHERE run_id = $1 AND kind = 'LLM'`,
          [id],
        );
        expect(llm[0]!.n).toBe(2);
      },
      60_000,
    );

    itOnPostgres(
      '`cli status` exits 0 while the worker is live and nothing is stuck, 1 with an expired lease',
      async () => {
        const healthy = await cli(['status'], env);
        expect(healthy.out).toMatch(/^Workers: healthy$/m);
        expect(healthy.out).toMatch(/live workers\s+1$/m);
        expect(healthy.out).toMatch(/oldest wait\s+none waiting$/m);
        expect(healthy.code).toBe(0);

        const id = randomUUID();
        await ds.query(
          `INSERT INTO run (id, configuration_id, owner_id, max_iterations, status, checkpoint, claimed_by,
             lease_token, lease_expires_at, started_at)
           SELECT $1, c.id, u.id, 5, 'RUNNING', 'x', 'worker:gone:1', gen_random_uuid(),
                  now() - interval '1 minute', now()
             FROM configuration c, app_user u WHERE c.identifier = 'demo-editor' AND u.username = 'alice'`,
          [id],
        );
        const unhealthy = await cli(['status'], env);
        expect(unhealthy.out).toMatch(/^Workers: UNHEALTHY \(1 run\(s\) with an expired lease\)$/m);
        expect(unhealthy.out).toMatch(/expired leases\s+1$/m);
        expect(unhealthy.code).toBe(1);
        const json = await cli(['status', '--json'], env);
        expect(json.code).toBe(1);
        expect(JSON.parse(json.out)).toMatchObject({ liveWorkers: 1, expiredLeases: 1, healthy: false });
        await ds.query(
          `UPDATE run SET status = 'CANCELLED', lease_token = NULL, lease_expires_at = NULL WHERE id = $1`,
          [id],
        );
      },
      60_000,
    );

    itOnPostgres(
      'carries out a decision that an API-only instance recorded (DURABLE, because the worker is live)',
      async () => {
        const api = await startServer(env);
        const { port } = api;
        try {
          const [page] = await ds.query<Array<{ id: number }>>(
            `SELECT id FROM page WHERE slug = '/products'`,
          );
          const [config] = await ds.query<Array<{ id: number }>>(
            `SELECT id FROM configuration WHERE identifier = 'demo-editor'`,
          );
          const started = await gql<{ startRun: { id: string } }>(
            port,
            'alice',
            `mutation($input: StartRunInput!) { startRun(input: $input) { id } }`,
            {
              input: {
                configurationId: String(config!.id),
                prompt: 'SEO please',
                subjectPageId: String(page!.id),
              },
            },
          );
          expect(started.errors).toBeUndefined();
          const id = started.data!.startRun.id;
          await until(
            async () => (await runRow(ds, id)).status === 'WAITING_FOR_APPROVAL',
            20_000,
            'the run to wait for approval',
          );
          const pending = await gql<{ run: { pending: { turnDigest: string } } }>(
            port,
            'alice',
            `query($id: ID!) { run(id: $id) { pending { turnDigest } } }`,
            { id },
          );
          const approved = await gql<{ approveRun: { path: string; run: { status: string } } }>(
            port,
            'carol',
            `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`,
            { input: { runId: id, turnDigest: pending.data!.run.pending.turnDigest } },
          );
          expect(approved.errors).toBeUndefined();
          expect(approved.data!.approveRun).toEqual({
            path: 'DURABLE',
            run: { status: 'DECISION_RECORDED' },
          });
          await until(
            async () => (await runRow(ds, id)).status === 'COMPLETED',
            20_000,
            'the worker to finish it',
          );
          const [decision] = await ds.query<Array<{ path: string; outcome: string }>>(
            'SELECT path, outcome FROM decision WHERE run_id = $1',
            [id],
          );
          expect(decision).toEqual({ path: 'DURABLE', outcome: 'COMPLETED' });
          const writes = await ds.query<unknown[]>(
            `SELECT 1 FROM run_step WHERE run_id = $1 AND kind = 'TOOL_WRITE'`,
            [id],
          );
          expect(writes).toHaveLength(1);
          // The API-only instance never wrote a heartbeat: the worker is the only live one.
          expect((await heartbeatRows(ds)).map((r) => r.name)).toEqual([
            `worker:${hostname()}:${worker!.child.pid}`,
          ]);
        } finally {
          api.child.kill('SIGTERM');
          expect((await exitOf(api, 30_000)).code).toBe(0);
        }
      },
      90_000,
    );

    itOnPostgres(
      'on SIGTERM stops claiming, leaves the live set, lets a short run finish, requeues a long one, and exits 0',
      async () => {
        const proc = worker!;
        const short = await scriptedConfiguration(ds, 'short', [{ delayMs: 2500, text: 'Short done.' }]);
        const long = await scriptedConfiguration(ds, 'long', [{ delayMs: 120_000, text: 'Never.' }]);
        const a = await queueRun(ds, vault, short);
        const b = await queueRun(ds, vault, long);
        await ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
        await until(
          async () => {
            const rows = await Promise.all([runRow(ds, a), runRow(ds, b)]);
            return rows.every((r) => r.status === 'RUNNING' && String(r.claimed_by).startsWith('worker:'));
          },
          10_000,
          'both runs to be claimed',
        );
        const signalled = Date.now();
        proc.child.kill('SIGTERM');
        // A run queued after the signal is not taken any more.
        await new Promise((r) => setTimeout(r, 300));
        const late = await queueRun(ds, vault, short);
        await ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);

        const exited = await exitOf(proc, 30_000);
        worker = null;
        expect(exited).toEqual({ code: 0, signal: null });
        // It waited for the short run and gave up on the long one after its grace period.
        expect(Date.now() - signalled).toBeGreaterThan(2000);
        expect(Date.now() - signalled).toBeLessThan(20_000);
        expect(proc.output()).toMatch(/SIGTERM: stopping/);
        expect(await heartbeatRows(ds)).toEqual([]);
        expect(await runRow(ds, a)).toMatchObject({ status: 'COMPLETED', answer: 'Short done.' });
        expect(await runRow(ds, b)).toMatchObject({ status: 'QUEUED', lease_token: null, claimed_by: null });
        expect(await runRow(ds, late)).toMatchObject({ status: 'QUEUED', started_at: null });
        const stranded = await ds.query<unknown[]>(
          `SELECT id FROM run WHERE status = 'RUNNING' AND lease_token IS NULL`,
        );
        expect(stranded).toEqual([]);

        const noWorker = await cli(['status'], env);
        expect(noWorker.code).toBe(1);
        expect(noWorker.out).toMatch(/UNHEALTHY \(no live worker\)/);
        expect(noWorker.out).toMatch(/queued runs\s+2$/m);
      },
      60_000,
    );
  });

  describe('`cli status` on the embedded database', () => {
    const dataDir = join(temp, 'embedded');

    it('reports no live worker (no server holds DATA_DIR) with exit code 1', async () => {
      const run = await cli(['status'], { DATA_DIR: dataDir });
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^Workers: UNHEALTHY \(no live worker\)$/m);
      expect(run.out).toMatch(/queued runs\s+0$/m);
      expect(run.out).toMatch(/embedded mode runs its worker inside the server/);
    }, 60_000);

    it('says the database is in use while a server holds DATA_DIR, and exits 1', async () => {
      const release = lockDataDir(dataDir);
      try {
        const run = await cli(['status'], { DATA_DIR: dataDir });
        expect(run.code).toBe(1);
        expect(run.out).toMatch(new RegExp(`is in use by another process \\(pid ${process.pid}\\)`));
        expect(run.out).not.toMatch(/Workers:/);
      } finally {
        release();
      }
    }, 60_000);
  });
});
