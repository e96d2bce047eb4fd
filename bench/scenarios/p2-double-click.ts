// P2 (docs/benchmarks.md): the double-click storm. 64 concurrent approveRun of one user
// on one waiting run, many times; beside each, 64 raw-SQL racers doing the same conditional
// UPDATE on 64 connections. Exactly one winner per storm (counted in the responses and in the
// database), no server error, every loser ALREADY_RESUMING.
import { withBenchDatabase } from '../support/database';
import { decisionTraces, startWaitingRuns, type WaitingRun } from '../support/decisions';
import { describeEnvironment, type BenchOptions } from '../support/env';
import { checkAll, type Check, type Figure } from '../support/report';
import { waitForRest } from '../support/runs';
import { ratio, summarize } from '../support/stats';
import type { Scenario, ScenarioOutcome } from '../scenario';
import {
  appStorm,
  HOLD_MS,
  outcomeOf,
  prepareRig,
  rawStorm,
  releaseRig,
  viewerStorm,
  type RawStormSample,
  type Rig,
  type StormSample,
} from './p2-measure';
import { quorumChecks, quorumFigures, quorumStorms } from './p2-quorum';

interface Plan {
  readonly storms: number;
  readonly racers: number;
  /** Storms of the quorum variant (64 distinct voters, a quorum of 3). */
  readonly quorumStorms: number;
}

const FULL_PLAN: Plan = { storms: 100, racers: 64, quorumStorms: 100 };
// why: CI runs --quick; 10 storms of 64 still show a lost race or a 500 if there is one.
const QUICK_PLAN: Plan = { storms: 10, racers: 64, quorumStorms: 3 };

async function measure(rig: Rig, plan: Plan) {
  const input = { configurationId: rig.configurationId, prompt: 'Storm it', subjectPageId: rig.pageId };
  const runs: WaitingRun[] = await startWaitingRuns(
    rig.owner,
    rig.app.gql,
    rig.db.url,
    input,
    plan.storms + 1,
  );
  // warm-up: 64 keep-alive HTTP connections, JIT, the racers' plans
  await rawStorm(rig, 0);
  await appStorm(rig, runs[0]!, plan.racers, 0);
  const storms: StormSample[] = [];
  const raw: RawStormSample[] = [];
  const viewer: number[] = [];
  await viewerStorm(rig, plan.racers);
  for (let i = 1; i <= plan.storms; i++) {
    raw.push(await rawStorm(rig, i));
    storms.push(await appStorm(rig, runs[i]!, plan.racers, i));
    if (i % 2 === 0) viewer.push(await viewerStorm(rig, plan.racers));
    if (i % 10 === 0) process.stdout.write(`  storm ${i}/${plan.storms} done\n`);
  }
  // why: every continuation holds its last round HOLD_MS; all must settle before counting.
  const settled = [];
  for (const r of runs) settled.push(await waitForRest(rig.observer, r.runId, 60_000, 20));
  return { storms, raw, runs, settled, viewer };
}

function figures(storms: StormSample[], raw: RawStormSample[], viewer: number[]): Figure[] {
  const wall = summarize(storms.map((s) => s.wallMs));
  const rawWall = summarize(raw.map((r) => r.wallMs));
  const ratios = summarize(storms.map((s, i) => ratio(s.wallMs, raw[i]!.wallMs)));
  const per = (s: StormSample) => s.queries.total;
  return [
    {
      name: `storm wall time (${storms[0]?.answers.length ?? 0} concurrent approveRun, first sent .. last answer)`,
      unit: 'ms',
      ours: wall,
      baseline: { label: 'raw-SQL racers (same conditional UPDATE, one connection each)', value: rawWall },
      ratio: ratios,
      target: { text: '<= 2x', met: ratios.median <= 2 },
    },
    {
      name: `reference: ${storms[0]?.answers.length ?? 0} concurrent \`viewer\` queries (HTTP + GraphQL + token check, no decision), every other storm`,
      unit: 'ms',
      ours: summarize(viewer),
      baseline: { label: 'raw-SQL racers', value: rawWall },
      ratio: summarize(viewer.map((v, i) => ratio(v, raw[2 * i + 1]?.wallMs ?? NaN))),
    },
    {
      name: 'winners per storm (receipts)',
      unit: '',
      ours: summarize(storms.map((s) => outcomeOf(s).winners)),
    },
    { name: 'raw racers: winners per storm', unit: '', ours: summarize(raw.map((r) => r.winners)) },
    { name: 'statements of the app per storm', unit: '', ours: summarize(storms.map(per)) },
  ];
}

async function checks(
  rig: Rig,
  storms: StormSample[],
  raw: RawStormSample[],
  runs: WaitingRun[],
  settled: Array<{ status: string }>,
): Promise<Check[]> {
  const measured = new Set(storms.map((s) => s.runId));
  const traces = (
    await decisionTraces(
      rig.observer,
      runs.map((r) => r.runId),
    )
  ).filter((t) => measured.has(t.runId));
  const outcomes = storms.map(outcomeOf);
  const losers = outcomes.flatMap((o, i) =>
    Object.entries(o.codes)
      .filter(([code]) => code !== 'ALREADY_RESUMING')
      .map(([code, n]) => `storm ${storms[i]!.storm}: ${n} x ${code}`),
  );
  const serverErrors = outcomes.reduce((n, o) => n + o.serverErrors, 0);
  return [
    checkAll(
      'exactly one winner per storm (one receipt)',
      storms.length,
      outcomes.flatMap((o, i) =>
        o.winners === 1 ? [] : [`storm ${storms[i]!.storm}: ${o.winners} receipts`],
      ),
    ),
    checkAll(
      'exactly one winner per storm in the database (one decision row, one APPROVAL step)',
      traces.length,
      traces
        .filter((t) => t.decisions !== 1 || t.approvalSteps !== 1)
        .map((t) => `run ${t.runId}: ${t.decisions} decisions, ${t.approvalSteps} APPROVAL steps`),
    ),
    {
      name: '0 server errors (HTTP 5xx, INTERNAL_SERVER_ERROR)',
      ok: serverErrors === 0,
      detail: `${serverErrors} in ${storms.length * (storms[0]?.answers.length ?? 0)} answers`,
    },
    checkAll('every loser got ALREADY_RESUMING', storms.length, losers),
    checkAll(
      'every stormed run COMPLETED once its continuation ended',
      settled.length,
      settled.flatMap((s, i) => (s.status === 'COMPLETED' ? [] : [`run ${runs[i]!.runId}: ${s.status}`])),
    ),
    checkAll(
      'raw racers: exactly one winner per storm',
      raw.length,
      raw.flatMap((r) => (r.winners === 1 ? [] : [`storm ${r.storm}: ${r.winners}`])),
    ),
  ];
}

function details(plan: Plan, storms: StormSample[], raw: RawStormSample[]) {
  const codes: Record<string, number> = {};
  for (const o of storms.map(outcomeOf))
    for (const [c, n] of Object.entries(o.codes)) codes[c] = (codes[c] ?? 0) + n;
  const shapes = new Map<string, number>();
  for (const s of storms)
    for (const q of s.queries.byShape) shapes.set(q.shape, (shapes.get(q.shape) ?? 0) + q.count);
  return {
    plan: {
      ...plan,
      decisionPath: 'inline',
      clicker: 'carol (one token for all racers)',
      configuration: `bench-p2-storm: pages_update (approval), then a final answer held ${HOLD_MS} ms`,
    },
    method:
      "storm: Promise.all of the racers' fetch (keep-alive, one HTTP connection each after the warm-up); raw: Promise.all of one UPDATE per pg connection; the two alternate, raw first",
    codes,
    statementsPerStormByShape: Object.fromEntries(
      [...shapes.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / Math.max(1, storms.length)]),
    ),
    storms: storms.map((s, i) => ({
      storm: s.storm,
      wallMs: s.wallMs,
      rawWallMs: raw[i]?.wallMs,
      winners: outcomeOf(s).winners,
      statements: s.queries.total,
    })),
  };
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  return withBenchDatabase(options.databaseUrl, 'p2', async (db) => {
    const rig = await prepareRig(db, plan.racers);
    try {
      const environment = await describeEnvironment(rig.observer);
      const { storms, raw, runs, settled, viewer } = await measure(rig, plan);
      const quorum = await quorumStorms(rig, plan.quorumStorms, plan.racers);
      return {
        database: db.name,
        environment,
        checks: [
          ...(await checks(rig, storms, raw, runs.slice(1), settled.slice(1))),
          ...(await quorumChecks(rig, quorum)),
        ],
        figures: [...figures(storms, raw, viewer), ...quorumFigures(quorum)],
        details: details(plan, storms, raw),
      };
    } finally {
      await releaseRig(rig);
    }
  });
}

export const P2: Scenario = {
  id: 'P2',
  title: 'double-click storm: 64 concurrent approveRun on one run',
  run,
};
