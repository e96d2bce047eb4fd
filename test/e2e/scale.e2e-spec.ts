// Several processes on one database (docs/decisions.md "Two paths, one claim", "Workers
// and their heartbeat"; docs/streaming.md "In-memory or Redis"): compiled API-only instances and
// worker processes started as users start them, sharing PostgreSQL and Redis. 200 recorded
// decisions shared by 3 worker processes are in scale-workers.e2e-spec.ts.
import { createClient } from 'graphql-ws';
import type { DataSource } from 'typeorm';
import WebSocket from 'ws';
import {
  apiName,
  gqlAt,
  itOnPostgresAndRedis,
  pageWrites,
  redisUrl,
  startServer,
  startWorker,
  stepKinds,
  useProcessSuite,
} from '../support/processes';
import { collect, until } from '../support/runs';
import { APPROVE, editorAndPage, one, pretendLiveWorker, START } from '../support/scale';
import { demoTokens } from '../support/test-database';
import { TEST_STATE_KEY } from '../support/test-env';
import type { RunProgressEvent } from '../support/generated/schema';

const PROGRESS = `subscription($id: ID!) { runProgress(runId: $id) { kind status stepCount turn keepAlive } }`;

type ProgressEvent = Pick<RunProgressEvent, 'kind' | 'status' | 'stepCount' | 'turn' | 'keepAlive'>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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

describe('several processes on one database (compiled, in child processes)', () => {
  const rig = useProcessSuite('cs-scale-');

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: rig.db.url!,
    REDIS_URL: redisUrl()!,
    STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
    DATA_DIR: rig.dataDir,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DECISION_PATH: 'durable',
    ...extra,
  });

  itOnPostgresAndRedis(
    'a decision taken on instance A is carried out by a worker while a subscriber on instance B sees every step',
    async () => {
      const [a, b] = await Promise.all([startServer(env()), startServer(env())]);
      const worker = await startWorker(env(), rig.ds);
      const ids = await editorAndPage(rig.ds);
      const run = await waitingRunAt(rig.ds, a.port, { ...ids, prompt: 'SEO please', workspaceId: 11 });

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
          rig.ds,
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
        const kinds = await stepKinds(rig.ds, run.id);
        expect(kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
        expect(kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
        expect(await pageWrites(rig.ds, 11)).toBe(1);
        const decision = await one<{ path: string; outcome: string }>(
          rig.ds,
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
      const ids = await editorAndPage(rig.ds);
      // No live worker: the start runs inline on the API instance.
      const run = await waitingRunAt(rig.ds, api.port, { ...ids, prompt: 'SEO please', workspaceId: 12 });
      await pretendLiveWorker(rig.ds);
      const approved = await gqlAt<{ approveRun: { path: string; run: { status: string } } }>(
        api.port,
        'carol',
        APPROVE,
        { input: { runId: run.id, turnDigest: run.digest } },
      );
      const acknowledged = Date.now();
      expect(approved.data?.approveRun).toEqual({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
      // The worker it was recorded for is gone: its heartbeat goes stale.
      await rig.ds.query(`UPDATE worker_heartbeat SET last_seen = now() - interval '1 hour'`);

      await until(async () => (await status(rig.ds, run.id)) === 'COMPLETED', 20_000, 'the run to complete');
      const elapsed = Date.now() - acknowledged;
      // pickup (2 s) + the reconcile interval (2 s) + the continuation, with room for a busy machine.
      expect(elapsed).toBeLessThan(12_000);
      const timing = await one<{ waited: number }>(
        rig.ds,
        `SELECT extract(epoch FROM s.created_at - d.decided_at)::float8 AS waited
           FROM decision d JOIN run_step s ON s.run_id = d.run_id AND s.kind = 'APPROVAL'
          WHERE d.run_id = $1`,
        [run.id],
      );
      // Not before the pickup time: the reconcile waits DECISION_PICKUP_SECONDS.
      expect(timing.waited).toBeGreaterThanOrEqual(1.9);
      expect(api.output()).toMatch(/no live worker: took 1 overdue recorded decision\(s\) here/);
      expect(apiName(api)).toMatch(/^api:/);
      const kinds = await stepKinds(rig.ds, run.id);
      expect(kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
      expect(await pageWrites(rig.ds, 12)).toBe(1);
      const decision = await one<{ path: string; outcome: string }>(
        rig.ds,
        'SELECT path, outcome FROM decision WHERE run_id = $1',
        [run.id],
      );
      expect(decision).toEqual({ path: 'DURABLE', outcome: 'COMPLETED' });
    },
    90_000,
  );
});
