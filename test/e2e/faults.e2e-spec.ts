// Faults around a continuation (issue 7, item 3), with the compiled API and worker in child
// processes: the API killed right after a decision's receipt, PostgreSQL restarted in the middle
// of a continuation (a server of the test's own), Redis gone (a server of the test's own), and
// a worker paused past its lease. What users rely on is counted in the database: every write
// once, steps without gaps or duplicates, one decision per turn, nothing RUNNING without a lease.
import { createClient, type Client as WsClient } from 'graphql-ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import WebSocket from 'ws';
import {
  build,
  faultEnv,
  gqlAt,
  installWriteCounter,
  kill9,
  killAll,
  pageWrites,
  scriptedConfiguration,
  startServer,
  startWorker,
  stepKinds,
  workerName,
  type Spawned,
} from '../support/processes';
import {
  postgresBinaries,
  redisServerBinary,
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from '../support/private-services';
import { one, READ, runState, sleep, TERMINAL } from '../support/run-state';
import { collect, until, type Collected } from '../support/runs';
import { createTestDatabase, demoTokens, itOnPostgres, type TestDatabase } from '../support/test-database';
import { usingPostgres } from '../support/test-env';

const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
const PROGRESS = `subscription($id: ID!) { runProgress(runId: $id) { kind status stepCount } }`;
const WRITE = { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Fault-proof title' } }] };

/** Like `itOnPostgres`, and skipped with a note where a server binary the test needs is missing. */
function itOnPostgresWith(
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

describe('faults around a continuation (compiled API and worker processes)', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-faults-'));
  const pgBin = postgresBinaries();
  const redisBin = redisServerBinary();
  let db: TestDatabase | null = null;
  let ds: DataSource | null = null;
  let page: string;
  let privatePg: PrivatePostgres | null = null;
  let privateRedis: PrivateRedis | null = null;

  const env = (databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> =>
    faultEnv(databaseUrl, join(temp, 'data'), extra);

  beforeAll(() => {
    if (usingPostgres()) build();
  }, 240_000);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  async function open(url: string): Promise<DataSource> {
    const d = new DataSource({ type: 'postgres', url, extra: { max: 3 } });
    await d.initialize();
    return d;
  }

  /** A test database with the write counter and the step log, and its /products page id. */
  async function prepareDatabase(): Promise<void> {
    db = await createTestDatabase();
    ds = await open(db.url!);
    await installWriteCounter(ds);
    await installStepLog(ds);
    page = String((await one<{ id: number }>(ds, `SELECT id FROM page WHERE slug = '/products'`)).id);
  }

  async function cleanUp(): Promise<void> {
    await killAll();
    await privateRedis?.kill();
    privateRedis = null;
    await ds?.destroy();
    ds = null;
    await privatePg?.dispose();
    privatePg = null;
    await db?.dispose();
    db = null;
  }

  /** Starts a run through an API process and waits until it waits for approval. */
  async function waitingRun(port: number, configurationId: number, workspaceId: number): Promise<string> {
    const started = await gqlAt<{ startRun: { id: string } }>(port, 'alice', START, {
      input: { configurationId: String(configurationId), prompt: 'Go', subjectPageId: page, workspaceId },
    });
    expect(started.errors).toBeUndefined();
    const id = started.data!.startRun.id;
    await until(
      async () => (await runState(ds!, id)).status === 'WAITING_FOR_APPROVAL',
      30_000,
      'the run to wait for approval',
    );
    return id;
  }

  /** Approves as carol with the digest shown; the receipt. */
  async function approve(
    port: number,
    id: string,
    path?: 'INLINE' | 'DURABLE',
  ): Promise<{ path: string; run: { status: string } }> {
    const { turn_digest } = await one<{ turn_digest: string }>(
      ds!,
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
  }

  const settled = (id: string, ms = 40_000): Promise<void> =>
    until(async () => TERMINAL.has((await runState(ds!, id)).status), ms, `run ${id} to settle`);

  /**
   * What a user relies on after any fault: the run's steps numbered 1..step_count without a gap
   * or a duplicate; the write done once (TOOL_WRITE step and page_text transaction); one
   * APPROVAL step and one decision row for the turn, its outcome recorded; no lease left.
   */
  async function expectCarriedOutOnce(id: string, workspaceId: number): Promise<void> {
    const run = await runState(ds!, id);
    expect(run).toMatchObject({ status: 'COMPLETED', lease_token: null, claimed_by: null });
    const sequences = (
      await ds!.query<Array<{ sequence: number }>>(
        'SELECT sequence FROM run_step WHERE run_id = $1 ORDER BY sequence',
        [id],
      )
    ).map((r) => r.sequence);
    expect(sequences).toEqual(Array.from({ length: run.step_count }, (_, i) => i + 1));
    const kinds = await stepKinds(ds!, id);
    expect(kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
    expect(await pageWrites(ds!, workspaceId)).toBe(1);
    // Every answer of the model recorded once: a provider call cut off by the fault (a REQUEST
    // without its LLM step) is asked again by the process that took over, once per takeover.
    const unanswered = kinds.filter((k) => k === 'REQUEST').length - kinds.filter((k) => k === 'LLM').length;
    expect(unanswered).toBeGreaterThanOrEqual(0);
    expect(unanswered).toBeLessThanOrEqual(run.requeue_count);
    const decisions = await ds!.query<Array<{ turn: number; outcome: string | null }>>(
      'SELECT turn, outcome FROM decision WHERE run_id = $1',
      [id],
    );
    expect(decisions).toEqual([{ turn: run.turn, outcome: 'COMPLETED' }]);
  }

  async function expectNothingStranded(): Promise<void> {
    const stranded = await ds!.query<unknown[]>(
      `SELECT id, status FROM run
        WHERE (status = 'RUNNING' AND (lease_token IS NULL OR lease_expires_at IS NULL))
           OR (status <> 'RUNNING' AND lease_token IS NOT NULL)`,
    );
    expect(stranded).toEqual([]);
  }

  /** Waits until the claimer of a run has done its write and sits in the first slow round. */
  async function inFirstSlowRound(id: string, workspaceId: number): Promise<void> {
    await until(async () => (await pageWrites(ds!, workspaceId)) === 1, 20_000, 'the write');
    await until(
      async () => (await stepKinds(ds!, id)).filter((k) => k === 'REQUEST').length >= 2,
      10_000,
      'the first slow round',
    );
  }

  // One API instance and two workers on the shared PostgreSQL (a database of this file's own),
  // with a Redis of the test's own; the tests run in order, the API kill last.
  describe('an API instance and two worker processes', () => {
    let api: Spawned & { port: number };
    let workers: Spawned[] = [];
    let processEnv: Record<string, string>;

    beforeAll(async () => {
      if (!usingPostgres()) return;
      await prepareDatabase();
      if (redisBin) privateRedis = await startPrivateRedis(redisBin);
      processEnv = env(db!.url!, privateRedis ? { REDIS_URL: privateRedis.url } : {});
      [api, ...workers] = await Promise.all([
        startServer(processEnv),
        startWorker(processEnv, ds!),
        startWorker(processEnv, ds!),
      ]);
    }, 120_000);
    afterAll(() => cleanUp(), 60_000);

    const claimerOf = async (id: string): Promise<{ victim: Spawned; other: Spawned }> => {
      const { claimed_by } = await runState(ds!, id);
      const victim = workers.find((w) => workerName(w) === claimed_by);
      if (!victim) throw new Error(`run ${id} is not held by a worker (${claimed_by})`);
      return { victim, other: workers.find((w) => w !== victim)! };
    };

    itOnPostgres(
      'a worker paused past its lease (SIGSTOP, then SIGCONT) commits nothing after it wakes; the worker that took over finishes once',
      async () => {
        const config = await scriptedConfiguration(
          ds!,
          'paused',
          [
            WRITE,
            { ...READ, delayMs: 1500 },
            { ...READ, delayMs: 1000 },
            { text: 'Done by the other worker.' },
          ],
          8,
        );
        const id = await waitingRun(api.port, config, 80);
        expect((await approve(api.port, id)).path).toBe('DURABLE');
        await inFirstSlowRound(id, 80);
        const { victim, other } = await claimerOf(id);
        victim.child.kill('SIGSTOP');
        try {
          await until(
            async () => (await runState(ds!, id)).claimed_by === workerName(other),
            20_000,
            'the other worker to take the run over',
          );
        } finally {
          victim.child.kill('SIGCONT');
        }
        const woke = await one<{ now: Date }>(ds!, 'SELECT clock_timestamp() AS now');
        await settled(id);
        await until(
          () => /lease lost/.test(victim.output()),
          10_000,
          'the woken worker to notice its lost lease',
        );
        await expectCarriedOutOnce(id, 80);
        expect((await runState(ds!, id)).requeue_count).toBe(1);
        // Nothing was written under the woken worker's name after it woke.
        const late = await ds!.query<unknown[]>(
          'SELECT sequence, kind FROM test_step_log WHERE run_id = $1 AND claimed_by = $2 AND at >= $3',
          [id, workerName(victim), woke.now],
        );
        expect(late).toEqual([]);
        expect(victim.alive()).toBe(true);
        await expectNothingStranded();
      },
      90_000,
    );

    itOnPostgres(
      'a worker paused inside its write past its lease: the write is done once, the worker that takes over continues after it, the woken one does nothing',
      async () => {
        const config = await scriptedConfiguration(ds!, 'paused-in-write', [
          WRITE,
          { text: 'Never reached.' },
        ]);
        const workspace = 90;
        // The workspace copy of the page exists, and the test holds its row lock: the claimer's
        // write waits for it inside its transaction.
        await ds!.query(
          `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title, seo_description)
           SELECT page_id, language_id, $2, title, body, seo_title, seo_description FROM page_text
            WHERE page_id = $1 AND workspace_id = 0`,
          [page, workspace],
        );
        await ds!.query('DELETE FROM test_page_text_writes WHERE workspace_id = $1', [workspace]);
        const lock = ds!.createQueryRunner();
        await lock.connect();
        let victim: Spawned | null = null;
        try {
          await lock.startTransaction();
          await lock.query('SELECT 1 FROM page_text WHERE page_id = $1 AND workspace_id = $2 FOR UPDATE', [
            page,
            workspace,
          ]);
          const id = await waitingRun(api.port, config, workspace);
          expect((await approve(api.port, id)).path).toBe('DURABLE');
          // why: the write (riding in its call's completion, the run's row locked under its
          // lease) waits for the test's lock; nothing of it is visible yet.
          await until(
            async () =>
              (
                await ds!.query<unknown[]>(
                  `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
                )
              ).length === 1,
            20_000,
            'the write to wait for the lock',
          );
          expect(await runState(ds!, id)).toMatchObject({ status: 'RUNNING', pending_effect: null });
          victim = (await claimerOf(id)).victim;
          victim.child.kill('SIGSTOP');
          // The claimer's statement takes the lock and commits on the server, its process
          // stopped: the write with its steps and the checkpoint after it. The lease then runs
          // out: the reaper requeues the run and the other worker continues after the write
          // without repeating it. (Where the write goes in a transaction instead, the server
          // ends the stopped process's idle transaction: nothing of it commits.)
          await lock.commitTransaction();
          await until(async () => (await runState(ds!, id)).status === 'COMPLETED', 30_000, 'the takeover');
          expect(await runState(ds!, id)).toMatchObject({ lease_token: null, requeue_count: 1 });
          // No transaction of the stopped process is left open (idle_in_transaction_session_timeout).
          const idleInTransaction = async (): Promise<number> =>
            (
              await ds!.query<unknown[]>(
                `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
              )
            ).length;
          await until(
            async () => (await idleInTransaction()) === 0,
            6000,
            'the idle transaction to end',
          ).catch(() => undefined);
          const stillIdle = await idleInTransaction();
          victim.child.kill('SIGCONT');
          await sleep(2000);
          expect(await pageWrites(ds!, workspace)).toBe(1);
          expect(stillIdle).toBe(0);
          expect((await stepKinds(ds!, id)).filter((k) => k === 'TOOL_WRITE')).toEqual(['TOOL_WRITE']);
          expect(await one(ds!, 'SELECT outcome FROM decision WHERE run_id = $1', [id])).toEqual({
            outcome: 'COMPLETED',
          });
          expect(victim.alive()).toBe(true);
          await expectNothingStranded();
        } finally {
          victim?.child.kill('SIGCONT');
          if (lock.isTransactionActive) await lock.rollbackTransaction();
          await lock.release();
        }
      },
      90_000,
    );

    itOnPostgresWith(
      redisBin ? null : 'needs redis-server on the PATH',
      'Redis down: subscriptions end or are refused with a clear error, decisions still work; Redis back: subscriptions work again',
      async () => {
        const config = await scriptedConfiguration(ds!, 'without-redis', [
          WRITE,
          { text: 'Done without Redis.' },
        ]);
        const id = await waitingRun(api.port, config, 70);
        const client = wsClient(api.port);
        try {
          // A subscriber follows the waiting run while Redis is up.
          const before = collect<{ runProgress: { kind: string } }>(client, PROGRESS, { id });
          await until(() => before.events.length > 0, 10_000, 'the snapshot');
          await privateRedis!.kill();
          // It is told that live updates stopped instead of waiting for events that never come.
          await Promise.race([before.done, sleep(10_000)]);
          expect(errorCodes(before.errors)).toEqual(['INTERNAL_SERVER_ERROR']);
          expect(errorMessages(before.errors).join()).toMatch(/live updates are unavailable/i);

          // A new subscription is refused promptly with the same clear error.
          const t0 = Date.now();
          const refused = collect<{ runProgress: { kind: string } }>(client, PROGRESS, { id });
          await Promise.race([refused.done, sleep(10_000)]);
          expect(Date.now() - t0).toBeLessThan(5000);
          expect(refused.events).toEqual([]);
          expect(errorCodes(refused.errors)).toEqual(['INTERNAL_SERVER_ERROR']);
          expect(errorMessages(refused.errors).join()).toMatch(/live updates are unavailable/i);

          // Decisions still work: promptly, carried out by a worker, written once.
          const t1 = Date.now();
          expect(await approve(api.port, id)).toEqual({
            path: 'DURABLE',
            run: { status: 'DECISION_RECORDED' },
          });
          expect(Date.now() - t1).toBeLessThan(3000);
          await settled(id);
          await expectCarriedOutOnce(id, 70);
          await expectNothingStranded();
          // Neither process fell over (an unhandled rejection of the Redis client ends a process).
          await sleep(2000);
          expect([api, ...workers].map((p) => p.alive())).toEqual([true, true, true]);

          // Redis back on its port: the instances reconnect and a subscription follows a run again.
          privateRedis = await startPrivateRedis(redisBin!, privateRedis!.port);
          const again = await waitingRun(api.port, config, 71);
          let live: Collected<{ runProgress: { kind: string; status: string } }> | null = null;
          await until(
            async () => {
              live?.unsubscribe();
              live = collect(client, PROGRESS, { id: again });
              await Promise.race([
                live.done,
                until(() => live!.events.length > 0, 3000).catch(() => undefined),
              ]);
              return live.events.length > 0;
            },
            20_000,
            'a subscription to be accepted again',
          );
          expect((await approve(api.port, again)).path).toBe('DURABLE');
          await Promise.race([live!.done, sleep(20_000)]);
          expect(live!.events.map((e) => e.runProgress.kind).at(-1)).toBe('SETTLED');
          expect(live!.errors).toEqual([]);
          await expectCarriedOutOnce(again, 71);
        } finally {
          await client.dispose();
        }
      },
      90_000,
    );

    itOnPostgres(
      'kill -9 of the API right after the receipts: a worker carries out the durable and the inline decision, each write once',
      async () => {
        const config = await scriptedConfiguration(ds!, 'after-api-kill', [
          WRITE,
          { ...READ, delayMs: 300 },
          { text: 'Done after the API died.' },
        ]);
        const durable = await waitingRun(api.port, config, 50);
        const inline = await waitingRun(api.port, config, 51);
        expect(await approve(api.port, durable, 'DURABLE')).toEqual({
          path: 'DURABLE',
          run: { status: 'DECISION_RECORDED' },
        });
        const receipt = await approve(api.port, inline, 'INLINE');
        // why: the kill follows the receipt at once: the API had claimed the inline run under
        // its own lease and was starting the continuation.
        await kill9(api);
        expect(receipt).toEqual({ path: 'INLINE', run: { status: 'RUNNING' } });

        await settled(durable);
        await settled(inline);
        await expectCarriedOutOnce(durable, 50);
        const end = await runState(ds!, inline);
        const { outcome } = await one<{ outcome: string | null }>(
          ds!,
          'SELECT outcome FROM decision WHERE run_id = $1',
          [inline],
        );
        const writes = {
          steps: (await stepKinds(ds!, inline)).filter((k) => k === 'TOOL_WRITE').length,
          pages: await pageWrites(ds!, 51),
        };
        console.log(
          `inline decision, API killed after its receipt: ${end.status}/${end.termination_reason}, ` +
            `requeues ${end.requeue_count}, TOOL_WRITE ${writes.steps}, page writes ${writes.pages}, decision outcome ${outcome}`,
        );
        if (end.status === 'COMPLETED') {
          // Taken over by a worker after the API's lease expired: continued, the write once.
          await expectCarriedOutOnce(inline, 51);
          expect(end.requeue_count).toBe(1);
        } else {
          // The kill fell between the write's pending effect and its record: not repeated, and
          // the decision's outcome is on record (docs/run-lifecycle.md, the reaper).
          expect(end).toMatchObject({
            status: 'FAILED',
            termination_reason: 'NOT_RETRYABLE',
            lease_token: null,
          });
          expect(writes.pages).toBeLessThanOrEqual(1);
          expect(writes.steps).toBeLessThanOrEqual(writes.pages);
          expect(outcome).toBe('FAILED');
        }
        await expectNothingStranded();
      },
      90_000,
    );
  });

  describe("PostgreSQL restarted under an API instance and a worker (a server of the test's own)", () => {
    afterEach(() => cleanUp(), 60_000);

    itOnPostgresWith(
      pgBin
        ? null
        : 'needs PostgreSQL server binaries (initdb, pg_ctl, pg_dump, psql) under /usr/lib/postgresql/*/bin, and as root a postgres user',
      'the instances reconnect by themselves, the run finishes once, /health reports the outage and the recovery',
      async () => {
        await prepareDatabase();
        privatePg = await startPrivatePostgres(pgBin!);
        await privatePg.copyFrom(db!.url!, 'faults');
        // From here on the test database is the private server's copy.
        await ds!.destroy();
        const url = privatePg.url('faults');
        ds = await open(url);
        const config = await scriptedConfiguration(
          ds,
          'across-restart',
          [
            WRITE,
            { ...READ, delayMs: 1500 },
            { ...READ, delayMs: 1500 },
            { text: 'Done across the restart.' },
          ],
          8,
        );
        const [api, worker] = await Promise.all([startServer(env(url)), startWorker(env(url), ds)]);
        const health = async (): Promise<number> =>
          (await fetch(`http://127.0.0.1:${api.port}/health`).catch(() => null))?.status ?? 0;
        expect(await health()).toBe(200);

        const id = await waitingRun(api.port, config, 60);
        expect((await approve(api.port, id)).path).toBe('DURABLE');
        await inFirstSlowRound(id, 60);
        await ds.destroy();
        ds = null;
        await privatePg.stop();
        const down = Date.now();
        await until(async () => (await health()) === 503, 15_000, '/health to report the outage');
        const reportedDownAfter = Date.now() - down;
        // why: past the slow round and the lease, so the continuation meets the outage.
        await sleep(2000);
        expect(await health()).toBe(503);
        await privatePg.start();
        const up = Date.now();
        await until(async () => (await health()) === 200, 20_000, '/health to report the recovery');
        const reportedUpAfter = Date.now() - up;
        ds = await open(url);

        await settled(id, 60_000);
        await expectCarriedOutOnce(id, 60);
        await expectNothingStranded();
        expect([api.alive(), worker.alive()]).toEqual([true, true]);
        // The worker LISTENs for work again by itself, and the instances for token changes.
        const listeners = async (channel: string): Promise<number> =>
          (
            await ds!.query<unknown[]>(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
                AND application_name = 'countersign-listener' AND query = $1`,
              [`LISTEN ${channel}`],
            )
          ).length;
        await until(
          async () =>
            (await listeners('countersign_work')) === 1 && (await listeners('countersign_auth')) >= 1,
          40_000,
          'the LISTEN connections to come back',
        );
        // And a new decision goes through both instances as before.
        const after = await waitingRun(api.port, config, 61);
        expect((await approve(api.port, after)).path).toBe('DURABLE');
        await settled(after);
        await expectCarriedOutOnce(after, 61);
        console.log(
          `PostgreSQL restart: /health 503 after ${reportedDownAfter} ms, 200 again ${reportedUpAfter} ms after the start; ` +
            `run ${JSON.stringify(await runState(ds, id))}`,
        );
      },
      150_000,
    );
  });

  function wsClient(port: number): WsClient {
    return createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
      connectionParams: { authorization: `Bearer ${demoTokens().alice}` },
    });
  }
});

function errorCodes(errors: unknown[]): string[] {
  return errors.flatMap((e) =>
    Array.isArray(e)
      ? (e as Array<{ extensions?: { code?: string } }>).map((x) => x.extensions?.code ?? '?')
      : [(e as { extensions?: { code?: string } }).extensions?.code ?? String(e)],
  );
}

function errorMessages(errors: unknown[]): string[] {
  return errors.flatMap((e) =>
    Array.isArray(e)
      ? (e as Array<{ message: string }>).map((x) => x.message)
      : [(e as { message?: string }).message ?? ''],
  );
}
