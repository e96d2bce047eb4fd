// P8 (docs/benchmarks.md): answers streaming to chat readers. The scripted provider writes a
// chat answer in chunks; K graphql-ws subscribers of the conversation's `conversationEvents`
// (in this process, one token) get its TEXT_DELTA events. Two phases: `paced` (the default
// 50 ms window, a provider writing every 20 ms: what a reader sees, first delta latency) and
// `burst` (window 0, the provider back to back: the fan-out's capacity in deltas per second).
// Beside each, a raw `ws` broadcast of the very frames subscriber 0 received to K sockets.
import { EventEmitter } from 'node:events';
import { withBenchDatabase } from '../support/database';
import { describeEnvironment, type BenchOptions } from '../support/env';
import { rawClient } from '../support/pg';
import { BroadcastRig, type BroadcastResult } from '../support/raw-ws';
import { checkAll, type Check, type Figure } from '../support/report';
import { quantile, ratio, summarize } from '../support/stats';
import type { Scenario, ScenarioOutcome } from '../scenario';
import { measureTurn, prepareRig, releaseRig, type Pace, type TurnSample } from './p8-measure';

interface Plan {
  readonly k: number;
  readonly reps: number;
  readonly answerChars: number;
  readonly paced: Pace;
  readonly burst: Pace;
}

// why: the lead gives every subscriber time to follow the turn's run (one read per
// subscription when the turn starts) before the first character, so each sees it live.
const FULL_PLAN: Plan = {
  k: 1000,
  reps: 3,
  answerChars: 4000,
  paced: { label: 'paced', windowMs: 50, chunks: 100, chunkDelayMs: 20, leadMs: 2000 },
  burst: { label: 'burst', windowMs: 0, chunks: 200, chunkDelayMs: 0, leadMs: 2000 },
};
// why: CI runs --quick beside every other scenario: a few seconds.
const QUICK_PLAN: Plan = {
  k: 50,
  reps: 2,
  answerChars: 800,
  paced: { label: 'paced', windowMs: 50, chunks: 20, chunkDelayMs: 20, leadMs: 400 },
  burst: { label: 'burst', windowMs: 0, chunks: 40, chunkDelayMs: 0, leadMs: 400 },
};

const p = (values: readonly number[], q: number): number =>
  quantile(
    [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b),
    q,
  );

/** A readable answer of `chars` characters (words, so chunk boundaries fall anywhere). */
function answerOf(chars: number): string {
  const words = ['Countersign', 'streams', 'the', 'answer', 'while', 'the', 'model', 'writes', 'it.'];
  let text = '';
  for (let i = 0; text.length < chars; i++) text += `${words[i % words.length]} `;
  return text.slice(0, chars);
}

interface PhaseResult {
  readonly pace: Pace;
  readonly app: TurnSample[];
  /** Per repetition: the same frames broadcast one at a time, and back to back. */
  readonly raw: Array<{ stepwise: BroadcastResult; burst: BroadcastResult }>;
}

async function measurePhase(
  db: Parameters<typeof prepareRig>[0],
  plan: Plan,
  pace: Pace,
  answer: string,
): Promise<PhaseResult> {
  const observer = await rawClient(db.url, 'countersign-bench-observer');
  const app: TurnSample[] = [];
  try {
    const rig = await prepareRig(db, observer, pace, answer, plan.k);
    try {
      await measureTurn(rig, answer); // warm-up
      for (let rep = 1; rep <= plan.reps; rep++) {
        const t = Date.now();
        app.push(await measureTurn(rig, answer));
        process.stdout.write(
          `  ${pace.label} K=${plan.k}: repetition ${rep}/${plan.reps} done (${((Date.now() - t) / 1000).toFixed(1)} s)\n`,
        );
      }
    } finally {
      await releaseRig(rig);
    }
  } finally {
    await observer.end();
  }
  // why: not beside the app's sockets: both at once would double the descriptors in this process.
  const raw: PhaseResult['raw'] = [];
  const rig = await BroadcastRig.open(plan.k);
  try {
    for (const s of app) {
      const frames = s.frames.map((f) => [f]);
      raw.push({
        stepwise: await rig.broadcast(frames, 'stepwise'),
        burst: await rig.broadcast(frames, 'burst'),
      });
    }
  } finally {
    await rig.close();
  }
  return { pace, app, raw };
}

function figuresFor(plan: Plan, paced: PhaseResult, burst: PhaseResult): Figure[] {
  const k = `K=${plan.k}`;
  const rawFirst = (q: number) => summarize(paced.raw.map((r) => p(r.stepwise.latenciesMs, q)));
  const first = (q: number) => summarize(paced.app.map((s) => p(s.firstDeltaMs, q)));
  const firstRatio = (q: number) =>
    summarize(paced.app.map((s, i) => ratio(p(s.firstDeltaMs, q), p(paced.raw[i]!.stepwise.latenciesMs, q))));
  return [
    {
      name: `${k}: first delta, provider -> subscriber, p50 over subscribers`,
      unit: 'ms',
      ours: first(0.5),
      baseline: { label: 'raw ws, one frame to K sockets, p50 over deliveries', value: rawFirst(0.5) },
      ratio: firstRatio(0.5),
    },
    {
      name: `${k}: first delta, provider -> subscriber, p99 over subscribers`,
      unit: 'ms',
      ours: first(0.99),
      baseline: { label: 'raw ws, one frame to K sockets, p99 over deliveries', value: rawFirst(0.99) },
      ratio: firstRatio(0.99),
    },
    {
      name: `${k}: deltas per second to the subscribers (burst: window 0, provider back to back)`,
      unit: '/s',
      ours: summarize(burst.app.map((s) => s.rate)),
      baseline: {
        label: 'raw ws broadcast of the same frames, back to back',
        value: summarize(burst.raw.map((r) => r.burst.rate)),
      },
      ratio: summarize(burst.app.map((s, i) => ratio(s.rate, burst.raw[i]!.burst.rate))),
    },
    {
      name: `${k}: deltas per second at the default window (paced provider: set by its pace)`,
      unit: '/s',
      ours: summarize(paced.app.map((s) => s.rate)),
    },
    {
      name: `${k}: every delta, production of its first character -> subscriber, p99 (paced)`,
      unit: 'ms',
      ours: summarize(paced.app.map((s) => p(s.deltaMs, 0.99))),
    },
  ];
}

function checksFor(phases: readonly PhaseResult[]): Check[] {
  const samples = phases.flatMap((ph) =>
    ph.app.map((s, i) => ({ s, name: `${ph.pace.label} rep ${i + 1}` })),
  );
  return [
    checkAll(
      'every subscriber got the answer exactly once: contiguous offsets, one final delta, the full text',
      samples.reduce((n, x) => n + x.s.k, 0),
      samples.flatMap((x) => x.s.problems.map((problem) => `${x.name}: ${problem}`)),
    ),
  ];
}

function details(plan: Plan, phases: readonly PhaseResult[]) {
  return {
    plan,
    method: {
      subscribers:
        "K graphql-ws connections as alice (one token: one person's sessions share it), each subscribed to conversationEvents of one conversation, in the bench process beside the app",
      provider:
        'scripted: one round, `leadMs` then the answer in `chunks` pieces `chunkDelayMs` apart; every piece stamped where the runtime takes it (AnswerStream.push, performance.now())',
      firstDelta:
        "a subscriber's first TEXT_DELTA arrival minus the production of the answer's first character",
      rate: 'TEXT_DELTA frames delivered to all subscribers / (last arrival - first production)',
      baseline:
        'ws server + K client sockets in this process, the frames subscriber 0 received; stepwise = one frame at a time to every socket (latency), burst = back to back (capacity)',
    },
    phases: phases.map((ph) => ({
      pace: ph.pace,
      reps: ph.app.map((s, i) => ({
        deltasPerSubscriber: s.frames.length,
        deliveries: s.deliveries,
        rate: s.rate,
        firstDeltaP50Ms: p(s.firstDeltaMs, 0.5),
        firstDeltaP99Ms: p(s.firstDeltaMs, 0.99),
        deltaP50Ms: p(s.deltaMs, 0.5),
        deltaP99Ms: p(s.deltaMs, 0.99),
        joinedLate: s.joinedLate,
        raw: {
          stepwiseP50Ms: p(ph.raw[i]!.stepwise.latenciesMs, 0.5),
          stepwiseP99Ms: p(ph.raw[i]!.stepwise.latenciesMs, 0.99),
          burstRate: ph.raw[i]!.burst.rate,
        },
      })),
    })),
  };
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  const answer = answerOf(plan.answerChars);
  // why: K subscribers listen on one run's topics of the in-memory PubSub (see P3).
  const maxListeners = EventEmitter.defaultMaxListeners;
  EventEmitter.defaultMaxListeners = 0;
  return withBenchDatabase(options.databaseUrl, 'p8', async (db) => {
    const observer = await rawClient(db.url, 'countersign-bench-observer');
    const environment = await describeEnvironment(observer).finally(() => observer.end());
    const paced = await measurePhase(db, plan, plan.paced, answer);
    const burst = await measurePhase(db, plan, plan.burst, answer);
    return {
      database: db.name,
      environment,
      checks: checksFor([paced, burst]),
      figures: figuresFor(plan, paced, burst),
      details: details(plan, [paced, burst]),
    };
  }).finally(() => {
    EventEmitter.defaultMaxListeners = maxListeners;
  });
}

export const P8: Scenario = {
  id: 'P8',
  title: 'answer streaming: one chat answer to K conversationEvents subscribers, as the provider writes it',
  run,
};
