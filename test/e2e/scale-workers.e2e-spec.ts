// 200 recorded decisions across 3 worker processes on one database (docs/decisions.md "Two
// paths, one claim", "Workers and their heartbeat"): an in-process API records the decisions,
// compiled worker processes carry each out exactly once, sharing PostgreSQL and Redis. Two
// API instances and a worker are in scale.e2e-spec.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  build,
  installWriteCounter,
  itOnPostgresAndRedis,
  killAll,
  redisUrl,
  startWorker,
  workerName,
  type Spawned,
} from '../support/processes';
import { until } from '../support/runs';
import { APPROVE, editorAndPage, pretendLiveWorker, START } from '../support/scale';
import { bootTestApp, type TestApp } from '../support/test-app';
import { TEST_STATE_KEY, usingPostgres } from '../support/test-env';

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
