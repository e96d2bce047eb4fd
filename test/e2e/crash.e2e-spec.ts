// Workers that die or are stopped in the middle of a continuation (docs/run-lifecycle.md "Leases,
// fencing, the reaper"; docs/decisions.md "Workers and their heartbeat"): compiled worker
// processes killed with SIGKILL or stopped with SIGTERM while they hold a recorded decision.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  faultEnv,
  exitOf,
  gqlAt,
  heartbeatRows,
  itOnPostgresAndRedis,
  kill9,
  pageWrites,
  redisUrl,
  scriptedConfiguration,
  startServer,
  startWorker,
  stepKinds,
  workerName,
  type Spawned,
  useProcessSuite,
} from '../support/processes';
import { one, READ, runState, sleep, TERMINAL } from '../support/run-state';
import { collect, until } from '../support/runs';
import { demoTokens } from '../support/test-database';
import { usingPostgres } from '../support/test-env';

const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
const PROGRESS = `subscription($id: ID!) { runProgress(runId: $id) { kind status } }`;
const WRITE = { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Crash-proof title' } }] };

describe('workers that die or stop in the middle of a continuation (compiled, in child processes)', () => {
  const rig = useProcessSuite('cs-crash-');
  let page: string;

  const env = (extra: Record<string, string> = {}): Record<string, string> =>
    faultEnv(rig.db.url!, rig.dataDir, { REDIS_URL: redisUrl()!, ...extra });

  beforeEach(async () => {
    if (!usingPostgres() || !redisUrl()) return;
    page = String((await one<{ id: number }>(rig.ds, `SELECT id FROM page WHERE slug = '/products'`)).id);
  });

  /** Starts a run through the API process, waits until it waits, approves it (DURABLE). */
  async function approvedRun(port: number, configurationId: number, workspaceId: number): Promise<string> {
    const started = await gqlAt<{ startRun: { id: string } }>(port, 'alice', START, {
      input: { configurationId: String(configurationId), prompt: 'Go', subjectPageId: page, workspaceId },
    });
    expect(started.errors).toBeUndefined();
    const id = started.data!.startRun.id;
    await until(
      async () => (await runState(rig.ds, id)).status === 'WAITING_FOR_APPROVAL',
      30_000,
      'the run to wait for approval',
    );
    const { turn_digest } = await one<{ turn_digest: string }>(
      rig.ds,
      'SELECT turn_digest FROM run WHERE id = $1',
      [id],
    );
    const approved = await gqlAt<{ approveRun: { path: string } }>(port, 'carol', APPROVE, {
      input: { runId: id, turnDigest: turn_digest },
    });
    expect(approved.data?.approveRun.path).toBe('DURABLE');
    return id;
  }

  /** Writes of a run: TOOL_WRITE steps and page_text write transactions in its workspace. */
  async function writesOf(id: string, workspaceId: number): Promise<{ steps: number; pages: number }> {
    const kinds = await stepKinds(rig.ds, id);
    return {
      steps: kinds.filter((k) => k === 'TOOL_WRITE').length,
      pages: await pageWrites(rig.ds, workspaceId),
    };
  }

  itOnPostgresAndRedis(
    'kill -9 of the worker mid-continuation: another worker finishes the run after the lease expires, writing once',
    async () => {
      // After the approval: the write, then two slow reads and a slow answer (about 4 s).
      const config = await scriptedConfiguration(
        rig.ds,
        'crashy',
        [
          WRITE,
          { ...READ, delayMs: 1500 },
          { ...READ, delayMs: 1500 },
          { text: 'Done after the crash.', delayMs: 1000 },
        ],
        8,
      );
      const api = await startServer(env());
      let worker: Spawned = await startWorker(env(), rig.ds);
      const outcomes: string[] = [];
      // Kill at once (around the write), during the first slow read, during the last round.
      for (const [i, delay] of [0, 700, 2600].entries()) {
        const workspace = 20 + i;
        const id = await approvedRun(api.port, config, workspace);
        const victim = worker;
        await until(
          async () => {
            const s = await runState(rig.ds, id);
            return s.status === 'RUNNING' && s.claimed_by === workerName(victim);
          },
          20_000,
          'the worker to hold the continuation',
        );
        await sleep(delay);
        await kill9(victim);
        const atKill = await runState(rig.ds, id);
        const killedAt = Date.now();
        expect(atKill.status).toBe('RUNNING');
        worker = await startWorker(env(), rig.ds);

        await until(
          async () => TERMINAL.has((await runState(rig.ds, id)).status),
          40_000,
          'the run to settle',
        );
        const end = await runState(rig.ds, id);
        const writes = await writesOf(id, workspace);
        const decision = await one<{ outcome: string | null }>(
          rig.ds,
          'SELECT outcome FROM decision WHERE run_id = $1',
          [id],
        );
        outcomes.push(
          `kill after ${delay} ms (${atKill.pending_effect ? 'inside the write' : 'outside a write'}): ` +
            `${end.status}/${end.termination_reason} in ${Date.now() - killedAt} ms, requeues ${end.requeue_count}, ` +
            `TOOL_WRITE ${writes.steps}, page writes ${writes.pages}, APPROVAL steps ` +
            `${(await stepKinds(rig.ds, id)).filter((k) => k === 'APPROVAL').length}, decision outcome ${decision.outcome}`,
        );
        // Never twice: one write, or none where the run failed before it.
        expect(writes.pages).toBeLessThanOrEqual(1);
        expect(writes.steps).toBeLessThanOrEqual(1);
        if (end.status === 'COMPLETED') {
          expect(writes).toEqual({ steps: 1, pages: 1 });
          // Another worker took it over after the reaper requeued it.
          expect(end.requeue_count).toBe(1);
          // At most one APPROVAL step (none is a known defect, see the next test).
          expect((await stepKinds(rig.ds, id)).filter((k) => k === 'APPROVAL').length).toBeLessThanOrEqual(1);
        } else {
          // The kill fell inside the write: not repeated.
          expect(end).toMatchObject({ status: 'FAILED', termination_reason: 'NOT_RETRYABLE' });
        }
        expect(end.lease_token).toBeNull();
      }
      // Leave the outcomes in the test output: which kill timing hit what.
      console.log(outcomes.join('\n'));
      expect(outcomes.filter((o) => o.includes('COMPLETED/')).length).toBeGreaterThanOrEqual(2);
    },
    240_000,
  );

  itOnPostgresAndRedis(
    'a worker that died right after claiming a recorded decision: the takeover records the APPROVAL step and settles the decision',
    async () => {
      const config = await scriptedConfiguration(rig.ds, 'claimed-then-killed', [WRITE, { text: 'Done.' }]);
      const api = await startServer(env());
      // No worker yet: the start runs inline on the API; then a stand-in heartbeat makes the
      // decision DURABLE.
      const started = await gqlAt<{ startRun: { id: string } }>(api.port, 'alice', START, {
        input: { configurationId: String(config), prompt: 'Go', subjectPageId: page, workspaceId: 40 },
      });
      const id = started.data!.startRun.id;
      await until(
        async () => (await runState(rig.ds, id)).status === 'WAITING_FOR_APPROVAL',
        30_000,
        'the pause',
      );
      await rig.ds.query(
        `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('stand-in', 'worker:gone:1')`,
      );
      const { turn_digest } = await one<{ turn_digest: string }>(
        rig.ds,
        'SELECT turn_digest FROM run WHERE id = $1',
        [id],
      );
      const approved = await gqlAt<{ approveRun: { path: string } }>(api.port, 'carol', APPROVE, {
        input: { runId: id, turnDigest: turn_digest },
      });
      expect(approved.data?.approveRun.path).toBe('DURABLE');
      // What a worker killed right after its claim (RecordedDecisions.pickUp: DECISION_RECORDED ->
      // RUNNING) leaves behind: the run RUNNING under a lease nobody renews, no step written yet.
      await rig.ds.query(
        `UPDATE run SET status = 'RUNNING', claimed_by = 'worker:gone:1', lease_token = gen_random_uuid(),
                lease_expires_at = now() WHERE id = $1 AND status = 'DECISION_RECORDED'`,
        [id],
      );
      await rig.ds.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'stand-in'`);
      await startWorker(env(), rig.ds);
      await until(async () => TERMINAL.has((await runState(rig.ds, id)).status), 30_000, 'the takeover');
      expect(await runState(rig.ds, id)).toMatchObject({ status: 'COMPLETED', requeue_count: 1 });
      expect(await writesOf(id, 40)).toEqual({ steps: 1, pages: 1 });
      // The audit trail of the decision survives the takeover.
      expect((await stepKinds(rig.ds, id)).filter((k) => k === 'APPROVAL')).toHaveLength(1);
      expect(await one(rig.ds, 'SELECT path, outcome FROM decision WHERE run_id = $1', [id])).toEqual({
        path: 'DURABLE',
        outcome: 'COMPLETED',
      });
    },
    90_000,
  );

  itOnPostgresAndRedis(
    'SIGTERM on a worker holding continuations: the short one finishes, the long one is requeued and finished elsewhere',
    async () => {
      const short = await scriptedConfiguration(rig.ds, 'short-after', [
        WRITE,
        { text: 'Short.', delayMs: 1500 },
      ]);
      // why: longer than the worker's 10 s grace period on shutdown.
      const long = await scriptedConfiguration(rig.ds, 'long-after', [
        WRITE,
        { text: 'Long.', delayMs: 13_000 },
      ]);
      const api = await startServer(env());
      const worker = await startWorker(env(), rig.ds);
      const a = await approvedRun(api.port, short, 30);
      const b = await approvedRun(api.port, long, 31);
      await until(
        async () => {
          const states = await Promise.all([runState(rig.ds, a), runState(rig.ds, b)]);
          return states.every((s) => s.status === 'RUNNING' && s.claimed_by === workerName(worker));
        },
        20_000,
        'the worker to hold both continuations',
      );
      // Both writes are done before the signal (the write is the first thing after the approval).
      await until(
        async () => (await writesOf(a, 30)).steps === 1 && (await writesOf(b, 31)).steps === 1,
        10_000,
        'both writes',
      );
      // A subscriber on the API instance follows the short run through the worker's shutdown.
      const client = createClient({
        url: `ws://127.0.0.1:${api.port}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: true,
        connectionParams: { authorization: `Bearer ${demoTokens().alice}` },
      });
      try {
        const progress = collect<{ runProgress: { kind: string; status: string } }>(client, PROGRESS, {
          id: a,
        });
        await until(() => progress.events.length > 0, 10_000, 'the snapshot');
        worker.child.kill('SIGTERM');
        const exited = await exitOf(worker, 30_000);
        expect(await heartbeatRows(rig.ds)).toEqual([]);
        expect(await runState(rig.ds, a)).toMatchObject({ status: 'COMPLETED', lease_token: null });
        expect(await runState(rig.ds, b)).toMatchObject({
          status: 'QUEUED',
          lease_token: null,
          claimed_by: null,
        });
        const stranded = await rig.ds.query<unknown[]>(
          `SELECT id FROM run WHERE status = 'RUNNING' AND (lease_token IS NULL OR lease_expires_at IS NULL)`,
        );
        expect(stranded).toEqual([]);

        // Another worker finishes the requeued run from after its write.
        await startWorker(env(), rig.ds);
        await until(
          async () => (await runState(rig.ds, b)).status === 'COMPLETED',
          40_000,
          'the requeued run',
        );
        expect(await writesOf(a, 30)).toEqual({ steps: 1, pages: 1 });
        expect(await writesOf(b, 31)).toEqual({ steps: 1, pages: 1 });
        for (const id of [a, b]) {
          expect((await stepKinds(rig.ds, id)).filter((k) => k === 'APPROVAL')).toHaveLength(1);
        }
        // The run that finished during the shutdown was announced to its subscriber.
        const settled = progress.events.map((e) => e.runProgress).filter((e) => e.kind === 'SETTLED');
        expect(settled).toEqual([{ kind: 'SETTLED', status: 'COMPLETED' }]);
        // The worker stopped cleanly (exit code 0), with Redis configured.
        if (exited.code !== 0) console.log(worker.output());
        expect(exited).toEqual({ code: 0, signal: null });
      } finally {
        await client.dispose();
      }
    },
    120_000,
  );
});
