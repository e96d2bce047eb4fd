// The hot queries keep their indexes at volume (docs/pagination.md, docs/operations.md): with
// tens of thousands of runs and a quarter of a million steps analysed, no statement of the
// inbox, the run list, a steps page, the worker's pickup, the reaper's sweep or the retention
// sweep plans a sequential scan of `run` or `run_step`. The statements are the ones the app
// sends (captured from TypeORM's logger), explained with their own parameters.
import { DataSource } from 'typeorm';
import { DecisionsRepository } from '../../src/modules/approvals/persistence/decisions.repository';
import { QueuedRuns } from '../../src/modules/runs';
import { RunClaimsRepository } from '../../src/modules/runs/persistence/run-claims.repository';
import { RunReapingRepository } from '../../src/modules/runs/persistence/run-reaping.repository';
import { RunRetentionRepository } from '../../src/modules/runs/persistence/run-retention.repository';
import { RunUsageRepository } from '../../src/modules/runs/persistence/run-usage.repository';
import { WorkBacklogRepository } from '../../src/modules/worker/persistence/work-backlog.repository';
import { useTestApp } from '../support/suite';
import { seedRuns } from '../../bench/support/volume';

interface Captured {
  readonly sql: string;
  readonly params: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const LARGE = new Set(['run', 'run_step']);
const TOUCHES_LARGE = /\b(FROM|JOIN|UPDATE|INTO)\s+"?(run|run_step)"?(\s|$)/i;

function seqScans(node: PlanNode, found: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && LARGE.has(node['Relation Name'] ?? ''))
    found.push(node['Relation Name']!);
  for (const child of node.Plans ?? []) seqScans(child, found);
  return found;
}

/** Whether the plan sorts rows itself (instead of reading them in an index's order). */
function sorts(node: PlanNode): boolean {
  return /Sort/.test(node['Node Type']) || (node.Plans ?? []).some(sorts);
}

/**
 * Records the statements the app sends while `fn` runs; with `requestsOnly`, leaves out the
 * background claims (the reconciler's pickup runs on a timer; the last test checks those).
 */
async function capture(ds: DataSource, fn: () => Promise<unknown>, requestsOnly = true): Promise<Captured[]> {
  const logger = ds.logger as unknown as { logQuery: (q: string, p?: unknown[]) => unknown };
  const original = logger.logQuery.bind(logger);
  const seen: Captured[] = [];
  logger.logQuery = (sql: string, params?: unknown[]) => {
    if (!requestsOnly || !/SKIP LOCKED/.test(sql)) seen.push({ sql, params: params ?? [] });
    return original(sql, params);
  };
  try {
    await fn();
  } finally {
    logger.logQuery = original;
  }
  return seen;
}

describe('query plans at volume', () => {
  const { t } = useTestApp({ WORKER_ENABLED: 'false' });

  beforeAll(async () => {
    await seedRuns((sql, params) => t.dataSource.query(sql, params), {
      count: 60_000,
      owners: ['alice', 'bob', 'carol', 'dave'],
      waitingEvery: 10,
      stepsPerRun: 4,
    });
    await t.dataSource.query('ANALYZE');
  }, 300_000);

  /** Explains each captured statement on the large tables; the sequential scans it plans. */
  async function scansOf(
    statements: readonly Captured[],
  ): Promise<Array<{ sql: string; scans: string[]; sorted: boolean }>> {
    const hot = statements.filter(
      (s) => TOUCHES_LARGE.test(s.sql) && !/^\s*(START|COMMIT|ROLLBACK)/i.test(s.sql),
    );
    expect(hot.length).toBeGreaterThan(0);
    const out: Array<{ sql: string; scans: string[]; sorted: boolean }> = [];
    for (const s of hot) {
      const [row] = await t.dataSource.query<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(
        `EXPLAIN (FORMAT JSON) ${s.sql}`,
        s.params,
      );
      const plan = row!['QUERY PLAN'][0]!.Plan;
      out.push({ sql: s.sql.replace(/\s+/g, ' ').slice(0, 160), scans: seqScans(plan), sorted: sorts(plan) });
    }
    return out;
  }

  async function page(query: string, as: string, field: string): Promise<string | null> {
    const res = await t.gql<Record<string, { pageInfo: { endCursor: string | null } }>>(query, {}, as);
    expect(res.errors).toBeUndefined();
    return res.data![field]!.pageInfo.endCursor;
  }

  it.each([
    [
      'the inbox of an approver',
      'bob',
      'inboxConnection',
      'inboxConnection(first: 50$AFTER) { nodes { run { id } } pageInfo { endCursor } }',
      false,
    ],
    [
      'the inbox of an owner',
      'alice',
      'inboxConnection',
      'inboxConnection(first: 50$AFTER) { nodes { run { id } } pageInfo { endCursor } }',
      // why: one owner's waiting runs are capped (RUNS_MAX_WAITING_PER_USER), so the planner may
      // rightly sort the few it finds instead of reading them in index order.
      true,
    ],
    [
      'the run list of an admin',
      'admin',
      'runs',
      'runs(first: 50$AFTER) { nodes { id status } pageInfo { endCursor } }',
      false,
    ],
    [
      'the run list of a user',
      'alice',
      'runs',
      'runs(first: 50$AFTER) { nodes { id status } pageInfo { endCursor } }',
      false,
    ],
  ])('%s: first page and a later one, no sequential scan', async (_name, as, field, selection, maySort) => {
    let after: string | null = null;
    const statements = await capture(t.dataSource, async () => {
      after = await page(`{ ${selection.replace('$AFTER', '')} }`, as, field);
      await page(`{ ${selection.replace('$AFTER', `, after: ${JSON.stringify(after)}`)} }`, as, field);
    });
    expect(after).not.toBeNull();
    // why: a list's order must come from its index; a Sort node means every matching row is read.
    for (const s of await scansOf(statements)) {
      expect(s).toEqual({ sql: s.sql, scans: [], sorted: maySort ? s.sorted : false });
    }
  });

  it("a run's steps page, no sequential scan", async () => {
    const [run] = await t.dataSource.query<Array<{ id: string }>>(
      `SELECT id FROM run WHERE step_count = 4 LIMIT 1`,
    );
    const statements = await capture(t.dataSource, async () => {
      const res = await t.gql(`query($id: ID!) { run(id: $id) { steps(first: 2) { nodes { sequence } } } }`, {
        id: run!.id,
      });
      expect(res.errors).toBeUndefined();
    });
    for (const s of await scansOf(statements)) expect(s).toEqual({ sql: s.sql, scans: [], sorted: false });
  });

  it('the daily token sum of an owner (the budget check), no sequential scan', async () => {
    const usage = t.app.get(RunUsageRepository, { strict: false });
    const [row] = await t.dataSource.query<Array<{ owner_id: number; configuration_id: number }>>(
      `SELECT r.owner_id, r.configuration_id FROM run r JOIN app_user u ON u.id = r.owner_id
        WHERE u.username = 'alice' LIMIT 1`,
    );
    const since = new Date(Date.now() - 86_400_000);
    const statements = await capture(t.dataSource, () =>
      usage.ownerTokensSince(
        row!.owner_id,
        row!.configuration_id,
        since,
        '00000000-0000-4000-8000-000000000000',
      ),
    );
    for (const s of await scansOf(statements)) expect(s).toEqual({ sql: s.sql, scans: [], sorted: false });
  });

  it("the worker's pickup and gauges, the reaper's sweep and the retention sweep, no sequential scan", async () => {
    const claims = t.app.get(RunClaimsRepository, { strict: false });
    const queued = t.app.get(QueuedRuns, { strict: false });
    const reaping = t.app.get(RunReapingRepository, { strict: false });
    const retention = t.app.get(RunRetentionRepository, { strict: false });
    const backlog = t.app.get(WorkBacklogRepository, { strict: false });
    const statements = await capture(
      t.dataSource,
      async () => {
        await queued.claim('plans-test', 10);
        await claims.claimRecorded('plans-test', 30, 10);
        await reaping.reapExpired(100, DecisionsRepository.SETTLE_RIDER);
        // why: the status counts read the unfinished runs only (run_unfinished_idx), however
        // many finished runs the table holds.
        await backlog.backlog();
        await backlog.unfinishedRuns();
        // why: a cutoff far in the past: the statements are planned and run, nothing is removed.
        await retention.removeSteps(3_000 * 86_400, 100, 6_000 * 86_400);
        await retention.removeRuns(3_000 * 86_400, 100);
      },
      false,
    );
    const explained = await scansOf(statements);
    expect(explained.length).toBeGreaterThanOrEqual(7);
    // why: these sort the few runs of one status (QUEUED, RUNNING...) found through an index.
    for (const s of explained) expect(s).toEqual({ sql: s.sql, scans: [], sorted: s.sorted });
    const [{ n }] = (await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM run`,
    )) as [{ n: number }];
    expect(n).toBeGreaterThanOrEqual(60_000);
  });
});
