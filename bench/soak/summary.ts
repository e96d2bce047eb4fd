import type { Environment } from '../support/env';
import type { Check } from '../support/report';
import { fmt } from '../support/report';
import type { Fate } from './checker';
import type { RssSample } from './cluster';
import type { Facts } from './facts';
import { DECISION_OPERATIONS, type HistoryEntry, type RequestEntry } from './history';
import type { Idle } from './idle';
import { GROWTH_ALLOWANCE, JUDGED_FROM_MINUTES, type MemoryGrowth } from './memory';
import type { SoakOptions } from './options';

export interface SummaryInput {
  readonly options: SoakOptions;
  readonly environment: Environment;
  readonly database: string;
  readonly out: string;
  readonly history: readonly HistoryEntry[];
  readonly facts: Facts;
  readonly fates: Record<Fate, number>;
  readonly checks: readonly Check[];
  readonly memory: MemoryGrowth | null;
  readonly samples: readonly RssSample[];
  readonly run: {
    readonly actions: number;
    readonly killed: readonly string[];
    readonly flicks: number;
    readonly from: number;
    readonly to: number;
  };
  readonly idle: Idle;
}

function tally<T>(items: readonly T[], key: (t: T) => string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== null) out[k] = (out[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

const list = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

function memoryLine(m: MemoryGrowth | null, idle: Idle): string {
  if (!m) return 'memory: no samples of api-1';
  return (
    `memory: api-1 (${idle.runIds.length} idle waiting runs + ${idle.subscriptions.length} idle subscriptions, under the chaos) ` +
    `RSS ${fmt(m.first.median)} MB in the first ${fmt(m.windowSeconds)} s -> ${fmt(m.last.median)} MB in the last ` +
    `(${m.growthMb >= 0 ? '+' : ''}${fmt(m.growthMb)} MB, ${fmt(m.growthRatio * 100)}%; trend ${fmt(m.slopeMbPerMinute)} MB/min; ` +
    `max ${fmt(m.last.max)} MB) | target no growth (<= ${GROWTH_ALLOWANCE * 100}%): ` +
    (m.met === null ? `not judged under ${JUDGED_FROM_MINUTES} minutes` : m.met ? 'met' : 'NOT MET')
  );
}

/** The soak's summary: what it did, what it found, what the memory did; and its console lines. */
export function summarise(s: SummaryInput) {
  const requests = s.history.filter((e): e is RequestEntry => e.type === 'request');
  const decisions = requests.filter((e) => DECISION_OPERATIONS.has(e.op));
  const seconds = (s.run.to - s.run.from) / 1000;
  const byOp = tally(requests, (e) => e.op);
  const receipts = tally(decisions, (e) => (e.receipt ? `${e.receipt.kind} ${e.receipt.path}` : null));
  const refusals = tally(
    decisions.flatMap((e) => e.codes),
    (c) => c,
  );
  const intents = tally(decisions, (e) => e.intent);
  const transport = requests.filter((e) => e.transport !== null).length;
  const idleIds = new Set(s.idle.runIds);
  const runs = tally(
    s.facts.runs.filter((r) => !idleIds.has(r.id)),
    (r) => r.status,
  );
  const kills = tally([...s.run.killed], (k) => k);
  const peaks = tally([], () => null);
  for (const sample of s.samples) peaks[sample.member] = Math.max(peaks[sample.member] ?? 0, sample.rssMb);
  const acked = new Set(decisions.flatMap((e) => (e.receipt ? [e.receipt.decisionId] : []))).size;
  const lines = [
    `== soak summary: seed ${s.options.seed} ==`,
    `chaos ${fmt(seconds)} s, ${s.options.lanes} lanes, ${s.options.apis} API + ${s.options.workers} worker processes; ` +
      `${requests.length} requests (${fmt(requests.length / seconds)}/s): ${list(byOp)}`,
    `decision requests ${decisions.length} (${list(intents)})`,
    `  receipts: ${list(receipts)} (${acked} distinct decisions); refusals: ${list(refusals)}`,
    `decisions in the database: ${s.facts.decisions.length}; fates: ${list(s.fates)}`,
    `runs started by the actors: ${Object.values(runs).reduce((a, b) => a + b, 0)} (${list(runs)}); idle runs ${s.idle.runIds.length}`,
    `kills (-9): ${s.run.killed.length} (${list(kills)}); soak-multi switched off ${s.run.flicks} times; ` +
      `requests without an answer: ${transport}`,
    memoryLine(s.memory, s.idle),
    `peak RSS per process name (MB): ${list(Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, Math.round(v)])))}`,
  ];
  return {
    seed: s.options.seed,
    command: `npm run soak -- --minutes ${s.options.minutes} --seed ${s.options.seed} --workers ${s.options.workers} --apis ${s.options.apis}`,
    at: new Date().toISOString(),
    options: s.options,
    environment: s.environment,
    database: s.database,
    out: s.out,
    chaosSeconds: seconds,
    actions: s.run.actions,
    requests: {
      total: requests.length,
      byOp,
      decisionIntents: intents,
      receipts,
      refusals,
      withoutAnswer: transport,
    },
    decisions: { inDatabase: s.facts.decisions.length, acknowledged: acked, fates: s.fates },
    runs,
    kills,
    configurationSwitches: s.run.flicks,
    memory: s.memory,
    peakRssMb: peaks,
    // why: the probe's whole series, to tell warm-up from growth when reading a result.
    probeRss: s.samples.filter((x) => x.member === 'api-1').map((x) => [Math.round(x.t / 1000), x.rssMb]),
    correct: s.checks.every((c) => c.ok),
    checks: s.checks,
    lines,
  };
}
