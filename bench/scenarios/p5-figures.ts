// P5's figures: per-step cost by run length, how it changes along a run, and the references
// measured beside it in the same repetition (one commit; the bare step write).
import type { Figure } from '../support/report';
import { ratio, summarize, type Summary } from '../support/stats';
import type { WalSpan } from '../support/wal';
import {
  variantKey,
  type BaselineSample,
  type MeasuredBatch,
  type RunSample,
  type Variant,
} from './p5-measure';

/** Share of a run's steps compared at its start and at its end. */
const TENTH = 0.1;
/** Targets of docs/benchmarks.md (P5). */
export const MAX_STEP_OVER_COMMIT = 2;
export const MAX_WAL_GROWTH = 1.5;

const median = (values: readonly number[]): number => summarize(values).median;
// why: a span whose records could not be read back is left out (NaN) rather than counted
// with the other databases' WAL.
const dbBytes = (span: WalSpan): number =>
  span.inspectError ? NaN : (span.databaseBytes ?? span.clusterBytes);
const numbers = (xs: ReadonlyArray<number | null>): number[] => xs.filter((v): v is number => v !== null);

/** Mean of the first and of the last tenth of a per-step series. */
function ends(series: readonly number[]): { first: number; last: number } {
  const k = Math.max(1, Math.floor(series.length * TENTH));
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { first: mean(series.slice(0, k)), last: mean(series.slice(-k)) };
}

function batchFigures(batches: readonly MeasuredBatch[], count: number) {
  return {
    latencyMs: summarize(batches.map((b) => median(b.latenciesMs))),
    latencyP99Ms: summarize(batches.map((b) => summarize(b.latenciesMs).p99)),
    cpuMsPerCommit: summarize(batches.map((b) => b.cpuMs / count)),
    walBytesPerCommit: summarize(batches.map((b) => dbBytes(b.wal) / count)),
    walBytesPerCommitCluster: summarize(batches.map((b) => b.wal.clusterBytes / count)),
  };
}

export function baselineFigures(baselines: readonly BaselineSample[], commits: number) {
  return {
    commitsPerBatch: commits,
    update: batchFigures(
      baselines.map((b) => b.update),
      commits,
    ),
    insert: batchFigures(
      baselines.map((b) => b.insert),
      commits,
    ),
    appendStep: batchFigures(
      baselines.map((b) => b.append),
      commits,
    ),
    appendStepOverCommit: summarize(
      baselines.map((b) => ratio(median(b.append.latenciesMs), median(b.update.latenciesMs))),
    ),
  };
}

export type BaselineFigures = ReturnType<typeof baselineFigures>;

/** Per-step figures of one variant over its repetitions, each beside its repetition's commit. */
export function variantFigures(
  v: Variant,
  runs: readonly RunSample[],
  baselines: readonly BaselineSample[],
  commits: number,
) {
  const mine = runs.filter((r) => variantKey(r) === variantKey(v));
  const base = (rep: number): BaselineSample => baselines.find((b) => b.rep === rep)!;
  const msPerStep = mine.map((r) => r.serverMs / r.steps);
  const walPerStep = mine.map((r) => dbBytes(r.wal) / r.steps);
  const walEnds = mine.map((r) => ends(numbers(r.stepWal)));
  const msEnds = mine.map((r) => ends(r.stepGapMs));
  return {
    ...v,
    steps: mine[0]?.steps ?? 0,
    msPerStep: summarize(msPerStep),
    msPerStepOverCommit: summarize(
      mine.map((r, i) => ratio(msPerStep[i]!, median(base(r.rep).update.latenciesMs))),
    ),
    msPerStepClient: summarize(mine.map((r) => r.clientMs / r.steps)),
    cpuMsPerStep: summarize(mine.map((r) => r.cpuMs / r.steps)),
    walPerStep: summarize(walPerStep),
    walPerStepOverCommit: summarize(
      mine.map((r, i) => ratio(walPerStep[i]!, dbBytes(base(r.rep).update.wal) / commits)),
    ),
    walPerStepCluster: summarize(mine.map((r) => r.wal.clusterBytes / r.steps)),
    stepTransactionWal: summarize(mine.map((r) => median(numbers(r.stepWal)))),
    runWalBytes: summarize(mine.map((r) => dbBytes(r.wal))),
    fpiBytesPerRun: summarize(mine.map((r) => r.wal.fpiBytes)),
    otherDatabasesWalBytesPerRun: summarize(mine.map((r) => r.wal.clusterBytes - dbBytes(r.wal))),
    stepWalFirstTenth: summarize(walEnds.map((e) => e.first)),
    stepWalLastTenth: summarize(walEnds.map((e) => e.last)),
    stepWalLastOverFirst: summarize(walEnds.map((e) => ratio(e.last, e.first))),
    stepMsFirstTenth: summarize(msEnds.map((e) => e.first)),
    stepMsLastTenth: summarize(msEnds.map((e) => e.last)),
    stepMsLastOverFirst: summarize(msEnds.map((e) => ratio(e.last, e.first))),
  };
}

export type VariantFigures = ReturnType<typeof variantFigures>;

/** WAL per extra step between consecutive run lengths: grows if a step rewrites the past. */
export function marginalWal(sized: readonly VariantFigures[]) {
  return sized.slice(1).map((s, i) => {
    const prev = sized[i]!;
    const perExtraStep = (s.runWalBytes.median - prev.runWalBytes.median) / (s.steps - prev.steps);
    return { privacy: s.privacy, from: prev.rounds, to: s.rounds, walBytesPerExtraStep: perExtraStep };
  });
}

/** Median gap before a step, by step kind (where the time of a round goes). */
export function stepMsByKind(runs: readonly RunSample[]): Record<string, Summary> {
  const byKind = new Map<string, number[]>();
  for (const r of runs) {
    r.stepKinds.forEach((kind, i) => byKind.set(kind, [...(byKind.get(kind) ?? []), r.stepGapMs[i]!]));
  }
  return Object.fromEntries([...byKind].map(([k, gaps]) => [k, summarize(gaps)]));
}

/** WAL bytes per step by relation (median over repetitions). */
export function walByRelation(runs: readonly RunSample[]): Record<string, number> {
  const keys = new Set(runs.flatMap((r) => Object.keys(r.wal.byRelation)));
  const out: Record<string, number> = {};
  for (const key of [...keys].sort()) {
    out[key.replace(/"/g, '')] =
      Math.round(median(runs.map((r) => (r.wal.byRelation[key] ?? 0) / r.steps)) * 10) / 10;
  }
  return out;
}

function growthFigures(group: readonly VariantFigures[]): Figure[] {
  const small = group[0]!;
  const large = group[group.length - 1]!;
  const label = `${large.privacy}, ${large.rounds} rounds`;
  const growth = ratio(large.walPerStep.median, small.walPerStep.median);
  return [
    {
      name: `WAL/step ${large.rounds} over ${small.rounds} rounds (${large.privacy})`,
      unit: 'x',
      ours: summarize([growth]),
      target: { text: `<= ${MAX_WAL_GROWTH}x (flat)`, met: growth <= MAX_WAL_GROWTH },
    },
    {
      name: `step WAL, last tenth over first tenth (${label})`,
      unit: 'x',
      ours: large.stepWalLastOverFirst,
      target: {
        text: `<= ${MAX_WAL_GROWTH}x (flat)`,
        met: large.stepWalLastOverFirst.median <= MAX_WAL_GROWTH,
      },
    },
    { name: `step time, last tenth over first tenth (${label})`, unit: 'x', ours: large.stepMsLastOverFirst },
  ];
}

/** The headline figures, in console order. */
export function headlineFigures(sized: readonly VariantFigures[], base: BaselineFigures): Figure[] {
  const commit = { label: 'one commit (UPDATE)', value: base.update.latencyMs };
  const commitWal = { label: 'one commit (UPDATE)', value: base.update.walBytesPerCommit };
  const metadata = sized.filter((s) => s.privacy === 'METADATA');
  const full = sized.filter((s) => s.privacy === 'FULL');
  const figures: Figure[] = metadata.map((s) => ({
    name: `ms/step, ${s.rounds} rounds (${s.steps} steps)`,
    unit: 'ms',
    ours: s.msPerStep,
    baseline: commit,
    ratio: s.msPerStepOverCommit,
    target: {
      text: `<= ${MAX_STEP_OVER_COMMIT}x`,
      met: s.msPerStepOverCommit.median <= MAX_STEP_OVER_COMMIT,
    },
  }));
  figures.push(
    ...sized.map((s) => ({
      name: `WAL/step, ${s.rounds} rounds${s.privacy === 'METADATA' ? '' : ` (${s.privacy})`}`,
      unit: 'B',
      ours: s.walPerStep,
      baseline: commitWal,
      ratio: s.walPerStepOverCommit,
    })),
  );
  figures.push(...growthFigures(metadata));
  if (full.length > 1) figures.push(...growthFigures(full));
  figures.push({
    name: 'appendStep alone (the step write, no loop)',
    unit: 'ms',
    ours: base.appendStep.latencyMs,
    baseline: commit,
    ratio: base.appendStepOverCommit,
  });
  return figures;
}
