// P1 (docs/benchmarks.md): decision latency. approveRun on a waiting demo-editor run over
// HTTP until the receipt, and until the first runProgress event of the continuation reaches a
// subscriber that was already subscribed; beside one raw conditional-UPDATE commit plus one raw
// WebSocket echo round trip, measured in the same repetition on the same database. Decisions
// alternate between a client in a process of its own (the figures of record: a real client
// does not share the server's event loop) and one in the app's process (a reference).
import { profile, reportProfile } from '../support/cpu-profile';
import { withBenchDatabase } from '../support/database';
import { decisionTraces, startWaitingRuns, type WaitingRun } from '../support/decisions';
import { describeEnvironment, type BenchOptions } from '../support/env';
import { checkAll, type Check, type Figure } from '../support/report';
import { quantile, ratio, summarize } from '../support/stats';
import { scopeTotal, statementBoundCheck, STATEMENTS_PER_DECISION_BOUNDS } from '../support/statement-scopes';
import type { Scenario, ScenarioOutcome } from '../scenario';
import {
  decisionProblems,
  measureBaseline,
  measureDecision,
  prepareRig,
  releaseRig,
  type BaselineSample,
  type DecisionSample,
  type Rig,
  sideOf,
  warmUp,
} from './p1-measure';

interface Plan {
  readonly reps: number;
  /** Decisions per repetition (one waiting run each, decided one after another). */
  readonly decisions: number;
  /** Raw commits, echo round trips and viewer queries per repetition. */
  readonly baseline: number;
  /** Decisions before the first measured one (`warmUp`). */
  readonly warmUp: number;
}

const FULL_PLAN: Plan = { reps: 7, decisions: 20, baseline: 200, warmUp: 2_000 };
// why: CI runs --quick; 5 x 4 decisions (each followed to its SETTLED) take a few seconds.
const QUICK_PLAN: Plan = { reps: 5, decisions: 4, baseline: 50, warmUp: 100 };

/** The p-quantile of a sample (unsorted in, NaN when empty). */
const pq = (values: readonly number[], q: number): number =>
  quantile(
    [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b),
    q,
  );

async function waitingRuns(rig: Rig, count: number): Promise<WaitingRun[]> {
  return startWaitingRuns(
    rig.owner,
    rig.app.gql,
    rig.db.url,
    { configurationId: rig.ids.configurations['demo-editor'], prompt: 'SEO please' },
    count,
  );
}

async function measure(rig: Rig, plan: Plan) {
  // warm-up: JIT, pools, the HTTP keep-alive connections, the subscribers' sockets
  await warmUp(rig, plan.warmUp);
  const warm = await waitingRuns(rig, 4);
  for (const [i, run] of warm.entries()) await measureDecision(rig, run, 0, sideOf(i));
  await measureBaseline(rig, 20, 0);
  const decisions: DecisionSample[] = [];
  const baselines: BaselineSample[] = [];
  const runIds: string[] = [];
  for (let rep = 1; rep <= plan.reps; rep++) {
    const runs = await waitingRuns(rig, plan.decisions);
    baselines.push(await measureBaseline(rig, plan.baseline, rep));
    for (const [i, run] of runs.entries()) {
      runIds.push(run.runId);
      decisions.push(await measureDecision(rig, run, rep, sideOf(i)));
    }
    process.stdout.write(`  repetition ${rep}/${plan.reps} done\n`);
  }
  return { decisions, baselines, runIds };
}

interface PerRep {
  readonly rep: number;
  /** From the client in a process of its own (the figures of record). */
  readonly receiptP50: number;
  readonly receiptP99: number;
  readonly firstEventP50: number;
  readonly firstEventP99: number;
  readonly deliveryP50: number;
  readonly publishP50: number;
  readonly serverReceiptP50: number;
  readonly serverFirstEventP50: number;
  /** From the client in the app's process (the instrument of the rounds before). */
  readonly appClientReceiptP50: number;
  readonly appClientFirstEventP50: number;
  readonly appClientDeliveryP50: number;
  readonly commitP50: number;
  /** Echo round trips from the client host's process; within the app's process. */
  readonly echoP50: number;
  readonly appEchoP50: number;
  readonly viewerP50: number;
  readonly appStatementP50: number;
  readonly requestStatementsP50: number;
  readonly continuationStatementsP50: number;
  readonly preemptionsP50: number;
}

function perRep(decisions: DecisionSample[], baselines: BaselineSample[]): PerRep[] {
  return baselines.map((b) => {
    const all = decisions.filter((d) => d.rep === b.rep);
    const ds = all.filter((d) => d.client === 'own');
    const app = all.filter((d) => d.client === 'app');
    const of = (f: (d: DecisionSample) => number, q: number): number => pq(ds.map(f), q);
    const ofApp = (f: (d: DecisionSample) => number): number => pq(app.map(f), 0.5);
    return {
      rep: b.rep,
      receiptP50: of((d) => d.receiptMs, 0.5),
      receiptP99: of((d) => d.receiptMs, 0.99),
      firstEventP50: of((d) => d.firstEventMs, 0.5),
      firstEventP99: of((d) => d.firstEventMs, 0.99),
      deliveryP50: of((d) => d.deliveryMs, 0.5),
      publishP50: of((d) => d.publishMs, 0.5),
      serverReceiptP50: of((d) => d.serverReceiptMs, 0.5),
      serverFirstEventP50: of((d) => d.serverFirstEventMs, 0.5),
      appClientReceiptP50: ofApp((d) => d.receiptMs),
      appClientFirstEventP50: ofApp((d) => d.firstEventMs),
      appClientDeliveryP50: ofApp((d) => d.deliveryMs),
      commitP50: pq(b.commitMs, 0.5),
      echoP50: pq(b.echoOwnMs, 0.5),
      appEchoP50: pq(b.echoMs, 0.5),
      viewerP50: pq(b.viewerMs, 0.5),
      appStatementP50: pq(b.appStatementMs, 0.5),
      requestStatementsP50: pq(
        all.map((d) => scopeTotal(d.queries, 'request')),
        0.5,
      ),
      continuationStatementsP50: pq(
        all.map((d) => scopeTotal(d.queries, 'continuation')),
        0.5,
      ),
      preemptionsP50: of((d) => d.preemptions, 0.5),
    };
  });
}

function figures(reps: PerRep[]): Figure[] {
  const s = (f: (r: PerRep) => number) => summarize(reps.map(f));
  /** A figure without a baseline or a target. */
  const plain = (name: string, unit: string, f: (r: PerRep) => number): Figure => ({
    name,
    unit,
    ours: s(f),
  });
  const base = s((r) => r.commitP50 + r.echoP50);
  const receiptRatio = s((r) => ratio(r.receiptP50, r.commitP50 + r.echoP50));
  const receipt = s((r) => r.receiptP50);
  const first = s((r) => r.firstEventP50);
  const appRatio = s((r) => ratio(r.appClientReceiptP50, r.commitP50 + r.appEchoP50));
  return [
    {
      name: 'approveRun until the receipt (client in its own process), p50',
      unit: 'ms',
      ours: receipt,
      baseline: { label: 'raw commit + ws echo from that process (p50s)', value: base },
      ratio: receiptRatio,
      target: { text: '<= 3x', met: receiptRatio.median <= 3 },
    },
    plain('approveRun until the receipt, p99', 'ms', (r) => r.receiptP99),
    {
      name: 'decision -> first event of the continuation at the subscriber (its own process), p50',
      unit: 'ms',
      ours: first,
      target: { text: '<= 5 ms', met: first.median <= 5 },
    },
    plain('decision -> first event, p99', 'ms', (r) => r.firstEventP99),
    plain(
      'of which: event published (after the claim commit) -> frame at the subscriber, p50',
      'ms',
      (r) => r.deliveryP50,
    ),
    plain(
      'in the server: request arrived -> receipt written to the socket, p50',
      'ms',
      (r) => r.serverReceiptP50,
    ),
    plain(
      'in the server: request arrived -> first event published (its frame written), p50',
      'ms',
      (r) => r.serverFirstEventP50,
    ),
    {
      name: 'reference: the receipt with the client in the app process, p50',
      unit: 'ms',
      ours: s((r) => r.appClientReceiptP50),
      baseline: {
        label: 'raw commit + ws echo within the process (p50s)',
        value: s((r) => r.commitP50 + r.appEchoP50),
      },
      ratio: appRatio,
    },
    plain(
      'reference: the first event with the client in the app process, p50',
      'ms',
      (r) => r.appClientFirstEventP50,
    ),
    plain(
      'reference: of which publish -> frame with the client in the app process, p50',
      'ms',
      (r) => r.appClientDeliveryP50,
    ),
    plain('reference: `viewer` query over HTTP (auth + GraphQL, no work), p50', 'ms', (r) => r.viewerP50),
    plain(
      'reference: `SELECT 1` through the app DataSource (TypeORM + pool), p50',
      'ms',
      (r) => r.appStatementP50,
    ),
    plain('reference: raw conditional UPDATE commit, p50', 'ms', (r) => r.commitP50),
    plain('reference: raw ws echo round trip from the client host, p50', 'ms', (r) => r.echoP50),
    plain('reference: raw ws echo round trip within the process, p50', 'ms', (r) => r.appEchoP50),
    plain(
      'statements of the app per inline approveRun request (token check .. receipt)',
      '',
      (r) => r.requestStatementsP50,
    ),
    plain('statements of the continuation it launched (.. settle)', '', (r) => r.continuationStatementsP50),
    plain(
      "reference: the app's thread switched out while runnable, per decision (request .. settle), p50",
      '',
      (r) => r.preemptionsP50,
    ),
  ];
}

async function checks(
  rig: Rig,
  decisions: DecisionSample[],
  baselines: BaselineSample[],
  runIds: string[],
  settings: Record<string, string>,
): Promise<Check[]> {
  const traces = await decisionTraces(rig.observer, runIds);
  const commitFailures = baselines.reduce((n, b) => n + b.commitFailures, 0);
  return [
    {
      name: 'durable commits (fsync on, synchronous_commit on)',
      ok: settings.fsync === 'on' && settings.synchronous_commit === 'on',
      detail: `fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}`,
    },
    checkAll(
      'every decision answered a receipt (INLINE, APPROVE, RUNNING); the subscriber got the continuation and SETTLED COMPLETED',
      decisions.length,
      decisions.flatMap(decisionProblems),
    ),
    checkAll(
      'exactly one decision row and one APPROVAL step per run; every run COMPLETED',
      traces.length,
      traces
        .filter((t) => t.decisions !== 1 || t.approvalSteps !== 1 || t.status !== 'COMPLETED')
        .map(
          (t) => `run ${t.runId}: ${t.decisions} decisions, ${t.approvalSteps} APPROVAL steps, ${t.status}`,
        ),
    ),
    {
      name: 'every baseline commit changed one row',
      ok: commitFailures === 0,
      detail: `failed: ${commitFailures}`,
    },
    statementBoundCheck(
      'statements per inline approveRun request',
      decisions.map((d) => scopeTotal(d.queries, 'request')),
      STATEMENTS_PER_DECISION_BOUNDS.inlineRequest,
    ),
    statementBoundCheck(
      'statements per inline continuation',
      decisions.map((d) => scopeTotal(d.queries, 'continuation')),
      STATEMENTS_PER_DECISION_BOUNDS.inlineContinuation,
    ),
  ];
}

function pooled(decisions: DecisionSample[]) {
  return {
    receiptMs: summarize(decisions.map((d) => d.receiptMs)),
    firstEventMs: summarize(decisions.map((d) => d.firstEventMs)),
    publishMs: summarize(decisions.map((d) => d.publishMs)),
    deliveryMs: summarize(decisions.map((d) => d.deliveryMs)),
    serverReceiptMs: summarize(decisions.map((d) => d.serverReceiptMs)),
    serverFirstEventMs: summarize(decisions.map((d) => d.serverFirstEventMs)),
    eventBeforeReceipt: decisions.filter((d) => d.firstEventMs < d.receiptMs).length,
    decisions: decisions.length,
  };
}

function details(plan: Plan, reps: PerRep[], decisions: DecisionSample[]) {
  const perDecision = (scope: string) => {
    const shapes = new Map<string, number>();
    for (const d of decisions)
      for (const q of d.queries.scopes[scope]?.byShape ?? [])
        shapes.set(q.shape, (shapes.get(q.shape) ?? 0) + q.count);
    return Object.fromEntries(
      [...shapes.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, v / Math.max(1, decisions.length)]),
    );
  };
  return {
    plan: {
      ...plan,
      decisionPath: 'inline',
      configuration: 'demo-editor',
      approver: 'carol',
      subscriber: 'alice (owner)',
      clients: 'alternating: a process of their own (own, the figures of record) and the app process (app)',
    },
    method: {
      receipt:
        'the client clock before the HTTP approveRun request .. the receipt parsed (node:http, keep-alive)',
      firstEvent:
        'same start .. the first runProgress `next` frame with a step count above the snapshot, read off the subscriber socket',
      publish:
        'the app EventBus publish of that event, stamped by an in-process listener; a client host time is mapped ' +
        'onto the app clock by the IPC round trip with the shortest time (an error of at most half of it)',
      server:
        "the app's HTTP server: its 'request' event (a listener ahead of Express) .. the response's 'finish' " +
        '(handed to the socket); the first event from the same arrival to its publish',
      queries:
        'statements sent by the app pool (application_name countersign) from the request until the run settled, ' +
        'by async scope: request (the HTTP request), continuation (RunExecutor.launch), subscriber (token re-checks), other',
    },
    perRep: reps,
    pooled: pooled(decisions.filter((d) => d.client === 'own')),
    pooledAppClient: pooled(decisions.filter((d) => d.client === 'app')),
    statementsPerDecision: {
      bounds: STATEMENTS_PER_DECISION_BOUNDS,
      request: perDecision('request'),
      continuation: perDecision('continuation'),
      subscriber: perDecision('subscriber'),
      other: perDecision('other'),
    },
    decisions: decisions.map((d) => ({
      rep: d.rep,
      client: d.client,
      receiptMs: d.receiptMs,
      firstEventMs: d.firstEventMs,
      publishMs: d.publishMs,
      deliveryMs: d.deliveryMs,
      serverReceiptMs: d.serverReceiptMs,
      serverFirstEventMs: d.serverFirstEventMs,
      requestStatements: scopeTotal(d.queries, 'request'),
      continuationStatements: scopeTotal(d.queries, 'continuation'),
    })),
  };
}

/**
 * With --profile: one more repetition's decisions under the inspector's CPU profiler (app and
 * client share this process), written to bench/results/P1[-quick].cpuprofile; the top by self
 * time goes to the console. Kept apart from the measured repetitions: the profiler slows them.
 */
async function profiledDecisions(rig: Rig, plan: Plan, quick: boolean): Promise<void> {
  const runs = await waitingRuns(rig, plan.decisions * 2);
  const cpuProfile = await profile(async () => {
    for (const [i, run] of runs.entries()) await measureDecision(rig, run, 0, sideOf(i));
  });
  reportProfile('P1', quick, `${runs.length} decisions`, cpuProfile);
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  return withBenchDatabase(options.databaseUrl, 'p1', async (db) => {
    const rig = await prepareRig(db);
    try {
      const environment = await describeEnvironment(rig.observer);
      const { decisions, baselines, runIds } = await measure(rig, plan);
      if (options.profile) await profiledDecisions(rig, plan, options.quick);
      const reps = perRep(decisions, baselines);
      return {
        database: db.name,
        environment,
        checks: await checks(rig, decisions, baselines, runIds, environment.settings),
        figures: figures(reps),
        details: details(plan, reps, decisions),
      };
    } finally {
      await releaseRig(rig);
    }
  });
}

export const P1: Scenario = {
  id: 'P1',
  title: 'decision latency: approveRun until the receipt and until the first progress event',
  run,
};
