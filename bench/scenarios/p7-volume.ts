// P7 (docs/benchmarks.md): data at volume. One database grows from 10^2 to 10^4 to 10^6 runs
// (10 % waiting, two steps each, seeded through SQL, then vacuumed, analysed and checkpointed);
// at each size the same list queries go through the API (first page, and a deep page after a
// cursor in the middle of the list), and the worker's pickup and the reaper's sweep run through
// the app's repositories. A second database stays at the smallest size, with an app of its own,
// and every sample of a probe is taken on both, one right after the other: the figure is each
// query's p50 at the largest size over its p50 at the smallest, measured in the same minutes.
import { encodeCursor } from '../../src/common/cursor';
import { QueuedRuns } from '../../src/modules/runs';
import { RunClaimsRepository } from '../../src/modules/runs/persistence/run-claims.repository';
import { RunReapingRepository } from '../../src/modules/runs/persistence/run-reaping.repository';
import { bootApp, type BenchApp } from '../support/app';
import { withBenchDatabase, type BenchDatabase } from '../support/database';
import { describeEnvironment, type BenchOptions, type Environment } from '../support/env';
import type { Client } from 'pg';
import type { GraphQLClient } from '../support/graphql';
import { rawClient } from '../support/pg';
import { checkAll, type Check, type Figure } from '../support/report';
import { msSince, quantile, ratio, summarize } from '../support/stats';
import { seedRuns, SEEDED_WORKSPACE, type Sql } from '../support/volume';
import type { Scenario, ScenarioOutcome } from '../scenario';

interface Plan {
  readonly sizes: readonly number[];
  /** Timed requests per query and size. */
  readonly samples: number;
  /** Runs per seeding statement. */
  readonly chunk: number;
}

const FULL_PLAN: Plan = { sizes: [100, 10_000, 1_000_000], samples: 40, chunk: 100_000 };
// why: CI runs --quick: 10^5 runs seed in seconds and already show a scan's growth.
const QUICK_PLAN: Plan = { sizes: [100, 10_000, 100_000], samples: 25, chunk: 50_000 };
const OWNERS = ['alice', 'bob', 'carol', 'dave'];
const TARGET = 1.5;
/** The size the second database stays at: the first of every plan's sizes. */
const SMALL = 100;
const WAITING = `status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT')`;
const AT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** One timed query: what it asks, as whom, and how to check the answer. */
interface Probe {
  readonly name: string;
  readonly run: () => Promise<string | null>;
}

interface Timings {
  readonly p50: Record<string, number>;
  readonly samples: Record<string, number[]>;
}

/** One size of the growing database, and the smallest size measured beside it. */
interface SizeResult extends Timings {
  readonly size: number;
  /** The same probes on the database kept at the smallest size, in the same window. */
  readonly small: Timings;
  readonly problems: string[];
}

const median = (values: number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * Rows per page of each list: what the list held at the smallest size (at most 50), asked for at
 * every size. why: at 10^2 runs an owner's inbox holds a handful of runs (4 in the committed
 * run), and a page of 4 rows against a page of 50 compares page sizes, not table sizes; the
 * lists only grow, so the same page fits at every size.
 */
type PageSizes = Record<string, { readonly firstRows: number; readonly deepRows: number }>;

/** The list queries through the API, built for the current table (cursors from SQL). */
async function probes({ app, db, sql, stepRun }: Side, sizes: PageSizes): Promise<Probe[]> {
  const as = (user: string): GraphQLClient => app.gql.as(db.tokens[user]!);
  const [{ alice }] = (await sql(`SELECT id AS alice FROM app_user WHERE username = 'alice'`)) as [
    { alice: number },
  ];
  /**
   * The cursor of the row in the middle of a list, the id the next page must start with, and the
   * page sizes (those of the smallest size, kept in `sizes`).
   */
  const middle = async (key: string, list: string, from: string, order: string, column: string) => {
    const [{ n }] = (await sql(`SELECT count(*)::int AS n FROM run WHERE ${from}`)) as [{ n: number }];
    const rows = (await sql(
      `SELECT ${AT(column)} AS at, id FROM run WHERE ${from} ORDER BY ${order} OFFSET $1 LIMIT 2`,
      [Math.floor(n / 2)],
    )) as Array<{ at: string; id: string }>;
    sizes[key] ??= { firstRows: Math.min(50, n), deepRows: Math.min(50, n - Math.floor(n / 2) - 1) };
    return {
      cursor: encodeCursor(list, [rows[0]!.at, rows[0]!.id]),
      next: rows[1]?.id ?? null,
      ...sizes[key],
    };
  };
  const inboxMid = await middle('inbox', 'inbox', WAITING, 'waiting_since, id', 'waiting_since');
  const runsMid = await middle('runs', 'runs', 'true', 'created_at DESC, id DESC', 'created_at');
  const ownMid = await middle(
    'own runs',
    'runs',
    `owner_id = ${alice}`,
    'created_at DESC, id DESC',
    'created_at',
  );
  const ownInbox = await middle(
    'own inbox',
    'inbox',
    `${WAITING} AND owner_id = ${alice}`,
    'waiting_since, id',
    'waiting_since',
  );

  const page =
    (
      user: string,
      field: 'inboxConnection' | 'runs',
      selection: string,
      rows: number,
      after: string | null = null,
      next: string | null = null,
    ) =>
    async (): Promise<string | null> => {
      const args = after ? `first: ${rows}, after: ${JSON.stringify(after)}` : `first: ${rows}`;
      const res = await as(user).request<Record<string, { nodes: Array<Record<string, unknown>> }>>(
        `{ ${field}(${args}) { nodes { ${selection} } pageInfo { hasNextPage endCursor } } }`,
      );
      if (res.errors?.length) return `${field} as ${user}: ${res.errors[0]!.message}`;
      const nodes = res.data![field]!.nodes;
      if (nodes.length !== rows) return `${field} as ${user}: ${nodes.length} rows, not ${rows}`;
      const first = (nodes[0]!.run as { id: string } | undefined)?.id ?? (nodes[0]!.id as string);
      if (next && first !== next)
        return `${field} as ${user}: the page after the cursor starts at ${first}, not ${next}`;
      return null;
    };
  const steps = (after: number) => async (): Promise<string | null> => {
    const res = await app.gql.request<{ run: { steps: { nodes: Array<{ sequence: number }> } } }>(
      `query($id: ID!, $after: Int) { run(id: $id) { steps(first: 50, afterSequence: $after) { nodes { sequence } } } }`,
      { id: stepRun, after },
    );
    const nodes = res.data?.run.steps.nodes ?? [];
    return nodes.length === 50 && nodes[0]!.sequence === after + 1
      ? null
      : `steps after ${after}: wrong page`;
  };
  const claims = app.app.get(RunClaimsRepository, { strict: false });
  const queued = app.app.get(QueuedRuns, { strict: false });
  const reaping = app.app.get(RunReapingRepository, { strict: false });
  return [
    {
      name: 'inbox, first page (approver, every owner)',
      run: page('bob', 'inboxConnection', 'run { id }', inboxMid.firstRows),
    },
    {
      name: 'inbox, deep page (approver)',
      run: page('bob', 'inboxConnection', 'run { id }', inboxMid.deepRows, inboxMid.cursor, inboxMid.next),
    },
    {
      name: "inbox, first page (owner's own)",
      run: page('alice', 'inboxConnection', 'run { id }', ownInbox.firstRows),
    },
    {
      name: 'runs, first page (admin, every run)',
      run: page('admin', 'runs', 'id status', runsMid.firstRows),
    },
    {
      name: 'runs, deep page (admin)',
      run: page('admin', 'runs', 'id status', runsMid.deepRows, runsMid.cursor, runsMid.next),
    },
    { name: "runs, first page (owner's own)", run: page('alice', 'runs', 'id status', ownMid.firstRows) },
    {
      name: "runs, deep page (owner's own)",
      run: page('alice', 'runs', 'id status', ownMid.deepRows, ownMid.cursor, ownMid.next),
    },
    { name: "a run's steps, first page", run: steps(0) },
    { name: "a run's steps, deep page (after 500)", run: steps(500) },
    {
      name: "worker's pickup (queued and recorded claims)",
      run: async () => {
        const got = [
          ...(await queued.claim('bench-p7', 10)),
          ...(await claims.claimRecorded('bench-p7', 30, 10)),
        ];
        return got.length === 0 ? null : `pickup claimed ${got.length} run(s)`;
      },
    },
    {
      name: "reaper's sweep",
      run: async () => ((await reaping.reapExpired(100, null)).length === 0 ? null : 'the reaper took a run'),
    },
  ];
}

/** Seeds the database up to `size` runs (the runs already there count). */
async function growTo(sql: Sql, size: number, chunk: number): Promise<number> {
  const [{ n }] = (await sql(`SELECT count(*)::int AS n FROM run`)) as [{ n: number }];
  for (let have = n; have < size; have += chunk) {
    await seedRuns(sql, {
      count: Math.min(chunk, size - have),
      owners: OWNERS,
      waitingEvery: 10,
      stepsPerRun: 2,
    });
    // why: the marker tells seedRuns which runs still need steps; the next chunk is new rows.
    await sql(`UPDATE run SET workspace_id = 1 WHERE workspace_id = $1`, [SEEDED_WORKSPACE]);
  }
  await settle(sql);
  const [{ total }] = (await sql(`SELECT count(*)::int AS total FROM run`)) as [{ total: number }];
  return total;
}

/**
 * Leaves the seeded tables as a live database keeps them: vacuumed and analysed (autovacuum's
 * work, done at once), and their writes checkpointed. why: seeding a million runs writes about
 * a gigabyte of WAL (every row twice: the insert and the marker's update), so without this the
 * largest size was probed while the checkpointer flushed it and autovacuum swept the dead rows.
 * A full run measured its probes at 1.7-2.3x their 10^2 time that way, where two runs alone
 * measured 0.9-1.3x: the bench's own bulk load, not the queries. CHECKPOINT needs superuser or
 * pg_checkpoint; without either the checkpoint is left to the server's own schedule.
 */
async function settle(sql: Sql): Promise<void> {
  await sql('VACUUM (ANALYZE) run, run_step');
  await sql('CHECKPOINT').catch((e: { code?: string }) => {
    if (e.code !== '42501') throw e; // insufficient_privilege
  });
}

/**
 * Each probe `samples` times on the growing database and on the one kept at the smallest size,
 * one right after the other (which goes first alternates). why paired: the machine's speed
 * drifts by tens of per cent over minutes (a CPU-bound loop here ran 295,000 and then 530,000
 * hashes/s four minutes apart), and the largest size is probed minutes after the smallest was
 * seeded; measured in the same window, the drift falls on both sides of the ratio alike.
 */
async function measure(
  size: number,
  list: readonly Probe[],
  smallList: readonly Probe[],
  samples: number,
): Promise<SizeResult> {
  const problems: string[] = [];
  for (const probe of [...list, ...smallList]) for (let i = 0; i < 3; i++) await probe.run(); // warm-up
  const times = (): Record<string, number[]> => Object.fromEntries(list.map((p) => [p.name, []]));
  const large = times();
  const small = times();
  const timed = async (probe: Probe, into: Record<string, number[]>, label: number) => {
    const mark = process.hrtime.bigint();
    const problem = await probe.run();
    into[probe.name]!.push(msSince(mark));
    if (problem) problems.push(`${label}: ${problem}`);
  };
  for (let i = 0; i < samples; i++) {
    for (const [j, probe] of list.entries()) {
      const pair: Array<[Probe, Record<string, number[]>, number]> = [
        [probe, large, size],
        [smallList[j]!, small, SMALL],
      ];
      if (i % 2 === 1) pair.reverse();
      for (const [p, into, label] of pair) await timed(p, into, label);
    }
  }
  const p50s = (t: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
  return { size, p50: p50s(large), samples: large, small: { p50: p50s(small), samples: small }, problems };
}

function figures(results: readonly SizeResult[], names: readonly string[]): Figure[] {
  const large = results[results.length - 1]!;
  return names.map((name) => {
    const r = ratio(large.p50[name]!, large.small.p50[name]!);
    return {
      name: `${name}, p50 at ${large.size.toLocaleString('en')} runs`,
      unit: 'ms',
      ours: summarize(large.samples[name]!),
      baseline: {
        label: `the same at ${SMALL} runs, same window`,
        value: summarize(large.small.samples[name]!),
      },
      ratio: summarize([r]),
      target: { text: `<= ${TARGET}x`, met: r <= TARGET },
    };
  });
}

/** A bench database with its own app, grown and read through `sql`. */
interface Side {
  readonly db: BenchDatabase;
  readonly raw: Client;
  readonly sql: Sql;
  readonly app: BenchApp;
  /** The run with 1,000 steps the steps pages read. */
  readonly stepRun: string;
}

/** Boots the app on `db` and seeds the run with 1,000 steps, present at every size. */
async function openSide(db: BenchDatabase, close: Array<() => Promise<void>>): Promise<Side> {
  const raw = await rawClient(db.url, 'countersign-bench-p7');
  close.push(() => raw.end());
  const sql: Sql = async (text, params) =>
    (await raw.query(text, params)).rows as Array<Record<string, unknown>>;
  const app = await bootApp(db, { env: { WORKER_ENABLED: 'false' } });
  close.push(() => app.close());
  await seedRuns(sql, { count: 1, owners: ['alice'], waitingEvery: 1_000_000, stepsPerRun: 1_000 });
  const [{ stepRun }] = (await sql(`SELECT id AS "stepRun" FROM run WHERE workspace_id = $1`, [
    SEEDED_WORKSPACE,
  ])) as [{ stepRun: string }];
  await sql(`UPDATE run SET workspace_id = 1 WHERE workspace_id = $1`, [SEEDED_WORKSPACE]);
  return { db, raw, sql, app, stepRun };
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  return withBenchDatabase(options.databaseUrl, 'p7', (db) =>
    withBenchDatabase(options.databaseUrl, 'p7small', async (smallDb) => {
      const close: Array<() => Promise<void>> = [];
      try {
        const side = await openSide(db, close);
        const smallSide = await openSide(smallDb, close);
        const environment = await describeEnvironment(side.raw);
        await growTo(smallSide.sql, SMALL, plan.chunk);
        const pageSizes: PageSizes = {};
        // why first: the page sizes are those of the smallest size (PageSizes)
        const smallList = await probes(smallSide, pageSizes);
        const results: SizeResult[] = [];
        const seeding: Array<{ size: number; runs: number; seconds: number }> = [];
        let names: string[] = [];
        for (const size of plan.sizes) {
          const mark = process.hrtime.bigint();
          const runs = await growTo(side.sql, size, plan.chunk);
          seeding.push({ size, runs, seconds: msSince(mark) / 1000 });
          const list = await probes(side, pageSizes);
          names = list.map((p) => p.name);
          const result = await measure(size, list, smallList, plan.samples);
          results.push(result);
          const shown = (n: string) =>
            `${n} ${result.p50[n]!.toFixed(2)} ms (${result.small.p50[n]!.toFixed(2)} at ${SMALL})`;
          console.log(`  ${runs} runs: ${names.map(shown).join('; ')}`);
        }
        return outcome(db, environment, plan, results, names, seeding, pageSizes);
      } finally {
        for (const c of close.reverse()) await c();
      }
    }),
  );
}

function outcome(
  db: BenchDatabase,
  environment: Environment,
  plan: Plan,
  results: readonly SizeResult[],
  names: readonly string[],
  seeding: ReadonlyArray<{ size: number; runs: number; seconds: number }>,
  pageSizes: PageSizes,
): ScenarioOutcome {
  const problems = results.flatMap((r) => r.problems);
  const checks: Check[] = [
    checkAll(
      'every page had its rows (50, or what the list held at the smallest size), deep pages started right after their cursor',
      results.length * names.length * plan.samples * 2,
      problems,
    ),
    {
      name: 'every size reached',
      ok: seeding.every((s) => s.runs >= s.size),
      detail: seeding.map((s) => `${s.runs} runs (${s.seconds.toFixed(1)} s to seed)`).join(', '),
    },
  ];
  const summaries = (t: Timings) => Object.fromEntries(names.map((n) => [n, summarize(t.samples[n]!)]));
  const bySize = Object.fromEntries(results.map((r) => [String(r.size), summaries(r)]));
  const smallBySize = Object.fromEntries(results.map((r) => [String(r.size), summaries(r.small)]));
  return {
    database: db.name,
    environment,
    checks,
    figures: figures(results, names),
    details: { plan, seeding, pageSizes, bySize, smallBySize },
  };
}

export const P7: Scenario = {
  id: 'P7',
  title: 'data at volume: list pages, pickup and reaper from 10^2 to 10^6 runs',
  run,
};
