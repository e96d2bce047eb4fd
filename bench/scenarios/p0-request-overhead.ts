// P0: the fixed cost of a request. A bare `{ viewer { user { id } } }` over HTTP (token check,
// guards, GraphQL, no work) beside one raw conditional-UPDATE commit and `SELECT 1` through
// the app's own pool, in the same repetition on the same database. With `--profile`, a few
// thousand viewer queries run under the inspector's CPU profiler (app and client share the
// process, as in P1) and the profile goes to bench/results/P0[-quick].cpuprofile. The same
// viewer over Node's fetch runs beside it as a reference: the client's own share of the figure.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootApp, type BenchApp } from '../support/app';
import { CommitBaseline } from '../support/baseline';
import { profile, topOf } from '../support/cpu-profile';
import { withBenchDatabase } from '../support/database';
import { describeEnvironment, type BenchOptions } from '../support/env';
import type { GraphQLClient } from '../support/graphql';
import { rawClient } from '../support/pg';
import { QueryCounter } from '../support/query-counter';
import type { Check, Figure } from '../support/report';
import { msSince, quantile, ratio, summarize } from '../support/stats';
import type { Scenario, ScenarioOutcome } from '../scenario';

interface Plan {
  readonly reps: number;
  /** Requests, commits and pool statements per repetition. */
  readonly count: number;
  /** viewer queries under the profiler (with --profile). */
  readonly profiled: number;
}

const FULL_PLAN: Plan = { reps: 7, count: 300, profiled: 4000 };
// why: CI runs --quick; 5 x 60 of each stays within a few seconds.
const QUICK_PLAN: Plan = { reps: 5, count: 60, profiled: 1500 };

const VIEWER = `query BenchViewer { viewer { user { id } } }`;

interface Rep {
  readonly rep: number;
  readonly viewerP50: number;
  /** CPU time of this process (app and client) per viewer request: less noisy than latency on a shared machine. */
  readonly viewerCpuMs: number;
  /** The same viewer over Node's fetch (the bench's client until the thirteenth round of issue 13). */
  readonly fetchP50: number;
  readonly fetchCpuMs: number;
  readonly commitP50: number;
  readonly poolP50: number;
  readonly wrongAnswers: number;
  readonly commitFailures: number;
}

const p50 = (values: number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

type ViewerData = { viewer: { user: { id: string } | null } };

/** The bench's own client (node:http). */
const overBenchClient = (client: GraphQLClient) => () => client.must<ViewerData>(VIEWER);

/** The same request over Node's fetch, as the bench sent it until the thirteenth round. */
const overFetch = (url: string, token: string) => async (): Promise<ViewerData> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: VIEWER }),
  });
  return ((await res.json()) as { data: ViewerData }).data;
};

async function viewers(
  send: () => Promise<ViewerData>,
  count: number,
  userId: string,
): Promise<{ ms: number[]; wrong: number; cpuMs: number }> {
  const ms: number[] = [];
  let wrong = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const mark = process.hrtime.bigint();
    const data = await send();
    ms.push(msSince(mark));
    if (data.viewer.user?.id !== userId) wrong++;
  }
  const used = process.cpuUsage(cpu);
  return { ms, wrong, cpuMs: (used.user + used.system) / 1000 / count };
}

interface Clients {
  readonly bench: () => Promise<ViewerData>;
  readonly fetch: () => Promise<ViewerData>;
}

async function repetition(
  app: BenchApp,
  clients: Clients,
  commits: CommitBaseline,
  userId: string,
  rep: number,
  count: number,
): Promise<Rep> {
  const batch = await commits.updates(count);
  const v = await viewers(clients.bench, count, userId);
  const f = await viewers(clients.fetch, count, userId);
  const pool: number[] = [];
  for (let i = 0; i < count; i++) {
    const mark = process.hrtime.bigint();
    await app.dataSource.query('SELECT 1');
    pool.push(msSince(mark));
  }
  return {
    rep,
    viewerP50: p50(v.ms),
    viewerCpuMs: v.cpuMs,
    fetchP50: p50(f.ms),
    fetchCpuMs: f.cpuMs,
    commitP50: p50(batch.latenciesMs),
    poolP50: p50(pool),
    wrongAnswers: v.wrong + f.wrong,
    commitFailures: batch.failures,
  };
}

function figures(reps: Rep[], statements: number): Figure[] {
  const s = (f: (r: Rep) => number) => summarize(reps.map(f));
  return [
    {
      name: '`viewer { user { id } }` over HTTP, p50',
      unit: 'ms',
      ours: s((r) => r.viewerP50),
      baseline: { label: 'raw conditional UPDATE commit (p50)', value: s((r) => r.commitP50) },
      ratio: s((r) => ratio(r.viewerP50, r.commitP50)),
    },
    {
      name: '`viewer` over `SELECT 1` through the app pool (p50s)',
      unit: 'x',
      ours: s((r) => ratio(r.viewerP50, r.poolP50)),
    },
    {
      name: 'CPU of the process (app + client) per `viewer` request',
      unit: 'ms',
      ours: s((r) => r.viewerCpuMs),
    },
    {
      name: 'reference: the same `viewer` over Node fetch (the bench client until issue 13 round 13), p50',
      unit: 'ms',
      ours: s((r) => r.fetchP50),
    },
    { name: 'reference: CPU per `viewer` request over Node fetch', unit: 'ms', ours: s((r) => r.fetchCpuMs) },
    { name: 'reference: `SELECT 1` through the app DataSource, p50', unit: 'ms', ours: s((r) => r.poolP50) },
    { name: 'statements of the app pool per `viewer` request', unit: '', ours: summarize([statements]) },
  ];
}

async function profiled(client: GraphQLClient, count: number, userId: string, quick: boolean) {
  let wrong = 0;
  const started = process.hrtime.bigint();
  const cpuProfile = await profile(async () => {
    wrong = (await viewers(overBenchClient(client), count, userId)).wrong;
  });
  const seconds = msSince(started) / 1000;
  const file = join(__dirname, '..', '..', '..', 'bench', 'results', `P0${quick ? '-quick' : ''}.cpuprofile`);
  writeFileSync(file, JSON.stringify(cpuProfile));
  return { file, requests: count, perSecond: count / seconds, wrong, top: topOf(cpuProfile) };
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  return withBenchDatabase(options.databaseUrl, 'p0', async (db) => {
    const observer = await rawClient(db.url, 'countersign-bench-p0-observer');
    const app = await bootApp(db);
    const commits = await CommitBaseline.open(db.url);
    try {
      const environment = await describeEnvironment(observer);
      const user = await observer.query<{ id: number }>(`SELECT id FROM app_user WHERE username = 'carol'`);
      const userId = String(user.rows[0]!.id);
      const client = app.gql.as(db.tokens.carol!);
      const clients: Clients = {
        bench: overBenchClient(client),
        fetch: overFetch(app.httpUrl, db.tokens.carol!),
      };
      // warm-up: JIT, the keep-alive connection, the pool, the per-token cache
      await repetition(app, clients, commits, userId, 0, 50);
      const counter = QueryCounter.install();
      counter.start();
      await viewers(clients.bench, 20, userId);
      const statementsPerViewer = counter.stop().total / 20;
      const reps: Rep[] = [];
      for (let rep = 1; rep <= plan.reps; rep++)
        reps.push(await repetition(app, clients, commits, userId, rep, plan.count));
      const prof = options.profile ? await profiled(client, plan.profiled, userId, options.quick) : null;
      if (prof) {
        console.log(
          `  profile of ${prof.requests} viewer requests (${prof.perSecond.toFixed(0)}/s): ${prof.file}`,
        );
        for (const e of prof.top.bySelf)
          console.log(`    self ${e.selfPct.toFixed(1)}% total ${e.totalPct.toFixed(1)}%  ${e.name}`);
      }
      const wrong = reps.reduce((n, r) => n + r.wrongAnswers, 0) + (prof?.wrong ?? 0);
      const failures = reps.reduce((n, r) => n + r.commitFailures, 0);
      const checks: Check[] = [
        {
          name: 'durable commits (fsync on, synchronous_commit on)',
          ok: environment.settings.fsync === 'on' && environment.settings.synchronous_commit === 'on',
          detail: `fsync=${environment.settings.fsync}, synchronous_commit=${environment.settings.synchronous_commit}`,
        },
        { name: 'every viewer request answered its own user', ok: wrong === 0, detail: `wrong: ${wrong}` },
        { name: 'every baseline commit changed one row', ok: failures === 0, detail: `failed: ${failures}` },
      ];
      return {
        database: db.name,
        environment,
        checks,
        figures: figures(reps, statementsPerViewer),
        details: { plan, perRep: reps, statementsPerViewer, profile: prof },
      };
    } finally {
      await commits.close();
      await app.close();
      await observer.end();
    }
  });
}

export const P0: Scenario = {
  id: 'P0',
  title: 'request overhead: a bare viewer query against one commit and one pool statement',
  run,
};
