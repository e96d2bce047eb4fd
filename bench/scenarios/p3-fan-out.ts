// P3 (design/60-performance.md): fan-out. One run's steps to K subscribers, half admins on
// runEvents and half bob (AGENT_APPROVE grant, no detail) on runProgress, K graphql-ws
// connections from this process; beside it, a raw `ws` broadcast of the same bytes to the same
// number of sockets. Checks: every subscriber got every step, no content in count-only frames.
import { EventEmitter } from 'node:events';
import { withBenchDatabase } from '../support/database';
import { describeEnvironment, type BenchOptions } from '../support/env';
import { BroadcastRig, type BroadcastResult } from '../support/raw-ws';
import { checkAll, type Check, type Figure } from '../support/report';
import { quantile, ratio, summarize } from '../support/stats';
import { closeAll, openConnections } from '../support/ws-subscriber';
import type { Scenario, ScenarioOutcome } from '../scenario';
import { measureFanout, prepareRig, releaseRig, ROUNDS, type FanoutSample, type Rig } from './p3-measure';

interface Plan {
  /** Subscriber counts, each with its number of repetitions. */
  readonly ks: ReadonlyArray<{ readonly k: number; readonly reps: number }>;
}

// why: the app delivers about 700 frames a second here whatever K is (two token reads and a
// run read per frame, see the README), so a repetition takes K x 36 / 700 s: 5 s at 100,
// 50 s at 1,000, about 4 minutes at 5,000. Fewer repetitions where they cost minutes.
const FULL_PLAN: Plan = {
  ks: [
    { k: 100, reps: 5 },
    { k: 1000, reps: 3 },
    { k: 5000, reps: 1 },
  ],
};
// why: CI runs --quick with the other scenarios in about two minutes altogether; K = 500
// alone takes 25 s per repetition at the rate above, so quick keeps K = 100.
const QUICK_PLAN: Plan = { ks: [{ k: 100, reps: 3 }] };

const p = (values: readonly number[], q: number): number =>
  quantile(
    [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b),
    q,
  );

/** Per event: its last delivery minus its send, ms. */
const eventLast = (b: BroadcastResult): number[] => b.lastAt.map((at, e) => at - b.sentAt[e]!);

/** The raw broadcast of one repetition's frames: back to back, and one event at a time. */
interface RawSample {
  readonly k: number;
  readonly rep: number;
  readonly burst: BroadcastResult;
  readonly stepwise: BroadcastResult;
}

interface KResult {
  readonly k: number;
  readonly app: FanoutSample[];
  readonly raw: RawSample[];
  readonly connectMs: number;
  /** Resident set of this process (app + K client sockets) with K subscriptions open. */
  readonly rssMb: number;
}

async function measureK(rig: Rig, k: number, reps: number): Promise<KResult> {
  const started = Date.now();
  const connections = await openConnections(rig.app.wsUrl, k, (i) =>
    i % 2 === 0 ? rig.db.tokens.admin! : rig.db.tokens.bob!,
  );
  const connectMs = Date.now() - started;
  const app: FanoutSample[] = [];
  let rssMb = 0;
  try {
    await measureFanout(rig, connections.slice(0, Math.min(k, 20)), 0); // warm-up
    for (let rep = 1; rep <= reps; rep++) {
      const t = Date.now();
      app.push(await measureFanout(rig, connections, rep));
      rssMb = Math.max(rssMb, process.memoryUsage().rss / 2 ** 20);
      process.stdout.write(
        `  K=${k}: repetition ${rep}/${reps} done (${((Date.now() - t) / 1000).toFixed(1)} s)\n`,
      );
    }
  } finally {
    await closeAll(connections);
  }
  // why: app and raw sockets are not held open together: at K = 5,000 both would need about
  // 20,000 descriptors in this one process (client and server end of each), the hard limit here.
  const raw: RawSample[] = [];
  const rig2 = await BroadcastRig.open(k);
  try {
    for (const s of app) {
      const frames = s.sample.trace.map((t, i) => [t, s.sample.progress[i] ?? t]);
      raw.push({
        k,
        rep: s.rep,
        burst: await rig2.broadcast(frames, 'burst'),
        stepwise: await rig2.broadcast(frames, 'stepwise'),
      });
    }
  } finally {
    await rig2.close();
  }
  return { k, app, raw, connectMs, rssMb };
}

function figuresFor(r: KResult): Figure[] {
  const rates = summarize(r.app.map((s) => s.figures.rate));
  const rawRates = summarize(r.raw.map((s) => s.burst.rate));
  const rateRatio = summarize(r.app.map((s, i) => ratio(s.figures.rate, r.raw[i]!.burst.rate)));
  const p99 = summarize(r.app.map((s) => p(s.figures.lastDeliveryMs, 0.99)));
  const rawP99 = summarize(r.raw.map((s) => p(eventLast(s.stepwise), 0.99)));
  const at1000 = r.k === 1000;
  return [
    {
      name: `K=${r.k}: deliveries per second`,
      unit: '/s',
      ours: rates,
      baseline: { label: 'raw ws broadcast of the same frames, back to back', value: rawRates },
      ratio: rateRatio,
      ...(at1000 ? { target: { text: '>= 0.5x', met: rateRatio.median >= 0.5 } } : {}),
    },
    {
      name: `K=${r.k}: event -> last delivery, p99 over events`,
      unit: 'ms',
      ours: p99,
      baseline: { label: 'raw broadcast, one event at a time', value: rawP99 },
      ratio: summarize(
        r.app.map((s, i) => ratio(p(s.figures.lastDeliveryMs, 0.99), p(eventLast(r.raw[i]!.stepwise), 0.99))),
      ),
      ...(at1000 ? { target: { text: '< 100 ms', met: p99.median < 100 } } : {}),
    },
    {
      name: `K=${r.k}: event -> delivery, p50 over deliveries`,
      unit: 'ms',
      ours: summarize(r.app.map((s) => p(s.figures.latenciesMs, 0.5))),
    },
    {
      name: `K=${r.k}: statements of the app per delivered frame`,
      unit: '',
      ours: summarize(r.app.map((s) => s.queries.total / Math.max(1, s.figures.deliveries))),
    },
  ];
}

function checksFor(all: KResult[]): Check[] {
  const samples = all.flatMap((r) => r.app);
  const subscribers = samples.reduce((n, s) => n + s.k, 0);
  return [
    checkAll(
      'every subscriber got every step once, in order, then SETTLED COMPLETED / TERMINAL DONE (no gap)',
      subscribers,
      samples.flatMap((s) => s.problems.map((x) => `K=${s.k} rep ${s.rep}: ${x}`)),
    ),
    {
      name: '0 content in count-only frames (no runProgress frame carries the sentinel or a field beyond the six)',
      ok: samples.every((s) => s.leaks === 0),
      detail: `${samples.reduce((n, s) => n + s.leaks, 0)} leaking frames`,
    },
    {
      name: 'the sentinel was there to leak (admins saw it in the live trace)',
      ok: samples.every((s) => s.sentinelInTrace > 0),
      detail: `${samples.reduce((n, s) => n + s.sentinelInTrace, 0)} trace frames carried it`,
    },
    checkAll(
      'every run COMPLETED after all its rounds; step_count = run_step rows; sequences 1..n; every frame matched a publish',
      samples.length,
      samples.flatMap((s) => [
        ...s.runProblems.map((x) => `K=${s.k} rep ${s.rep}: ${x}`),
        ...(s.figures.unmatched > 0
          ? [`K=${s.k} rep ${s.rep}: ${s.figures.unmatched} unmatched frames`]
          : []),
      ]),
    ),
  ];
}

function details(plan: Plan, all: KResult[]) {
  return {
    plan: { ...plan, rounds: ROUNDS },
    note: "EventEmitter.defaultMaxListeners is lifted during P3: the app's in-memory PubSub warns (MaxListenersExceededWarning) once a run has more than 10 subscribers in one process",
    method: {
      subscribers:
        'one graphql-ws connection per subscriber (no multiplexing), even indexes admin on runEvents(afterSequence = step before the first live one), odd indexes bob on runProgress; all in the bench process beside the app',
      run: `bench-p3-fanout (privacy FULL): pages_update (approval), ${ROUNDS} pages_read rounds, a final answer with the sentinel; approved on the durable path and carried out by RecordedDecisions.pickUp once every subscription had its first frame`,
      publish:
        "each event's publish stamped by a listener on the app's EventBus (in-memory PubSub, synchronous), performance.now()",
      delivery:
        'performance.now() when the frame comes off the client socket; latency = arrival - publish of its event',
      rate: 'live deliveries / (last arrival - first publish)',
      baseline:
        'ws server + K client sockets in this process; socket i gets the admin frame (even) or the progress frame (odd) of each event; clients JSON.parse every frame; burst = back to back (capacity: the rate baseline), stepwise = the next event once the previous reached every socket (the fan-out latency of one event: the p99 baseline)',
    },
    perK: all.map((r) => ({
      k: r.k,
      connectMs: r.connectMs,
      benchProcessRssMb: r.rssMb,
      reps: r.app.map((s, i) => ({
        rep: s.rep,
        steps: s.toStep - s.fromStep,
        deliveries: s.figures.deliveries,
        rate: s.figures.rate,
        lastDeliveryP99Ms: p(s.figures.lastDeliveryMs, 0.99),
        lastDeliveryMaxMs: Math.max(...s.figures.lastDeliveryMs),
        deliveryP50Ms: p(s.figures.latenciesMs, 0.5),
        deliveryP99Ms: p(s.figures.latenciesMs, 0.99),
        subscribeMs: s.subscribeMs,
        keepAlives: s.keepAlives,
        statements: s.queries.total,
        statementsByShape: s.queries.byShape.slice(0, 8),
        raw: {
          burstRate: r.raw[i]?.burst.rate,
          burstLastP99Ms: p(r.raw[i] ? eventLast(r.raw[i].burst) : [], 0.99),
          stepwiseRate: r.raw[i]?.stepwise.rate,
          stepwiseLastP99Ms: p(r.raw[i] ? eventLast(r.raw[i].stepwise) : [], 0.99),
        },
      })),
    })),
  };
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  // why: the app's in-memory PubSub (one EventEmitter) warns "possible memory leak" once a
  // run's topic has more than 10 listeners, i.e. more than 10 subscribers in one process;
  // that is the scenario here, so the warning threshold is lifted while it runs.
  const maxListeners = EventEmitter.defaultMaxListeners;
  EventEmitter.defaultMaxListeners = 0;
  return withBenchDatabase(options.databaseUrl, 'p3', async (db) => {
    const rig = await prepareRig(db);
    try {
      const environment = await describeEnvironment(rig.observer);
      const all: KResult[] = [];
      for (const { k, reps } of plan.ks) all.push(await measureK(rig, k, reps));
      return {
        database: db.name,
        environment,
        checks: checksFor(all),
        figures: all.flatMap(figuresFor),
        details: details(plan, all),
      };
    } finally {
      await releaseRig(rig);
    }
  }).finally(() => {
    EventEmitter.defaultMaxListeners = maxListeners;
  });
}

export const P3: Scenario = {
  id: 'P3',
  title: 'fan-out: one run to K subscribers (half runEvents admins, half runProgress grant holders)',
  run,
};
