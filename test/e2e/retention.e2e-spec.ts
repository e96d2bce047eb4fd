// Retention of finished runs (docs/operations.md "Retention"): steps go after
// RETENTION_STEPS_DAYS, runs after RETENTION_RUNS_DAYS, in batches of RETENTION_BATCH_RUNS;
// waiting, running and recorded runs and their decisions are never touched.
import { RetentionSweep } from '../../src/modules/worker/application/retention-sweep';
import { useTestApp } from '../support/suite';
import { SEEDED_WORKSPACE, seedRuns } from '../../bench/support/volume';

describe('retention sweep', () => {
  const { t } = useTestApp({
    WORKER_ENABLED: 'false',
    RETENTION_STEPS_DAYS: '1',
    RETENTION_RUNS_DAYS: '3',
    RETENTION_BATCH_RUNS: '7',
  });

  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    ((await t.dataSource.query<Array<{ n: number }>>(sql, params))[0] as { n: number }).n;

  beforeAll(async () => {
    const owners = ['alice', 'bob'];
    // 20 runs finished ~5 days ago, 20 ~2 days ago, 20 just now; every 4th of each waits instead.
    await seedRuns((sql, params) => t.dataSource.query(sql, params), {
      count: 20,
      owners,
      waitingEvery: 4,
      stepsPerRun: 3,
      finishedDaysAgo: 5,
    });
    await t.dataSource.query(`UPDATE run SET workspace_id = 1 WHERE workspace_id = $1`, [SEEDED_WORKSPACE]);
    await seedRuns((sql, params) => t.dataSource.query(sql, params), {
      count: 20,
      owners,
      waitingEvery: 4,
      stepsPerRun: 3,
      finishedDaysAgo: 2,
    });
    await t.dataSource.query(`UPDATE run SET workspace_id = 2 WHERE workspace_id = $1`, [SEEDED_WORKSPACE]);
    await seedRuns((sql, params) => t.dataSource.query(sql, params), {
      count: 20,
      owners,
      waitingEvery: 4,
      stepsPerRun: 3,
    });
    await t.dataSource.query(`UPDATE run SET workspace_id = 3 WHERE workspace_id = $1`, [SEEDED_WORKSPACE]);
    // An old run whose decision is recorded (a worker will carry it out), with its decision row.
    await t.dataSource.query(`UPDATE run SET status = 'DECISION_RECORDED', waiting_since = NULL
       WHERE id = (SELECT id FROM run WHERE workspace_id = 1 AND status = 'WAITING_FOR_APPROVAL' LIMIT 1)`);
    await t.dataSource.query(
      `INSERT INTO decision (id, run_id, turn, kind, decided_by, turn_digest, fingerprint, path, decided_at)
       SELECT gen_random_uuid(), r.id, 1, 'APPROVE', r.owner_id, repeat('a', 64), repeat('b', 64), 'DURABLE', r.created_at
         FROM run r WHERE r.workspace_id IN (1, 2)`,
    );
  }, 120_000);

  it('removes in small batches: old runs with their steps and decisions, then older steps; nothing else', async () => {
    const before = {
      runs: await count(`SELECT count(*)::int AS n FROM run WHERE workspace_id IN (1, 2, 3)`),
      steps: await count(
        `SELECT count(*)::int AS n FROM run_step s JOIN run r ON r.id = s.run_id WHERE r.workspace_id IN (1, 2, 3)`,
      ),
    };
    expect(before).toEqual({ runs: 60, steps: 180 });
    const sweep = t.app.get(RetentionSweep, { strict: false });

    const first = await sweep.sweepOnce();
    // 15 finished runs are due for deletion and 15 more for losing their steps: 7 of each first.
    expect(first).toEqual({ runsRemoved: 7, runsStripped: 7, stepsRemoved: 42, more: true });
    const passes = [first];
    while (passes.at(-1)!.more) passes.push(await sweep.sweepOnce());
    expect(passes.reduce((n, p) => n + p.runsRemoved, 0)).toBe(15);
    expect(passes.reduce((n, p) => n + p.runsStripped, 0)).toBe(15);
    expect(passes.reduce((n, p) => n + p.stepsRemoved, 0)).toBe(90);

    // Old: only the waiting and the recorded runs are left, with their steps and decisions.
    const old = await t.dataSource.query<Array<{ status: string; steps: number; decisions: number }>>(
      `SELECT r.status, (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id) AS steps,
              (SELECT count(*)::int FROM decision d WHERE d.run_id = r.id) AS decisions
         FROM run r WHERE r.workspace_id = 1 ORDER BY r.status`,
    );
    expect(old).toEqual([
      { status: 'DECISION_RECORDED', steps: 3, decisions: 1 },
      ...Array.from({ length: 4 }, () => ({ status: 'WAITING_FOR_APPROVAL', steps: 3, decisions: 1 })),
    ]);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM decision d WHERE NOT EXISTS (SELECT 1 FROM run r WHERE r.id = d.run_id)`,
      ),
    ).toBe(0);
    // Two days old: finished runs stay without steps (marked), waiting ones keep theirs.
    expect(
      await count(
        `SELECT count(*)::int AS n FROM run WHERE workspace_id = 2 AND status = 'COMPLETED' AND steps_removed_at IS NOT NULL AND step_count = 3`,
      ),
    ).toBe(15);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM run_step s JOIN run r ON r.id = s.run_id WHERE r.workspace_id = 2`,
      ),
    ).toBe(15);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM decision d JOIN run r ON r.id = d.run_id WHERE r.workspace_id = 2`,
      ),
    ).toBe(20);
    // Recent: untouched.
    expect(
      await count(
        `SELECT count(*)::int AS n FROM run_step s JOIN run r ON r.id = s.run_id WHERE r.workspace_id = 3`,
      ),
    ).toBe(60);

    // A stripped run reads as such through the API: no steps, the time they went.
    const [stripped] = await t.dataSource.query<Array<{ id: string }>>(
      `SELECT id FROM run WHERE workspace_id = 2 AND steps_removed_at IS NOT NULL LIMIT 1`,
    );
    const res = await t.gql<{
      run: { stepCount: number; stepsRemovedAt: string | null; steps: { nodes: unknown[] } };
    }>(`query($id: ID!) { run(id: $id) { stepCount stepsRemovedAt steps { nodes { sequence } } } }`, {
      id: stripped!.id,
    });
    expect(res.data!.run.stepCount).toBe(3);
    expect(res.data!.run.steps.nodes).toEqual([]);
    expect(Date.parse(res.data!.run.stepsRemovedAt!)).toBeGreaterThan(Date.now() - 60_000);

    // The metrics report the same totals.
    const metrics = await (await fetch(t.url.replace(/\/graphql$/, '/metrics'))).text();
    expect(metrics).toContain('countersign_retention_removed_total{kind="runs"} 15');
    expect(metrics).toContain('countersign_retention_removed_total{kind="stripped_runs"} 15');
    expect(metrics).toContain('countersign_retention_removed_total{kind="steps"} 90');

    // Nothing is left to do.
    expect(await sweep.sweepOnce()).toEqual({
      runsRemoved: 0,
      runsStripped: 0,
      stepsRemoved: 0,
      more: false,
    });
  });
});
