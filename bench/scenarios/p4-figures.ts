// P4's figures, from the windows its scenario measured.
import type { ClaimLoopSample } from '../support/claim-loop';
import { cpuPer, type CpuSpan } from '../support/cpu-meter';
import { graphileFigures, type GraphileSample } from '../support/graphile-peer';
import type { QueryCount } from '../support/query-counter';
import type { Figure } from '../support/report';
import { STATEMENTS_PER_DECISION_BOUNDS } from '../support/statement-scopes';
import { ratio, summarize } from '../support/stats';

/** One measured window of the worker. */
export interface Window {
  readonly rep: number;
  readonly completed: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** Runs finished in the window's first and second half (as the raw loop's `halves`). */
  readonly halves: readonly [number, number];
  /** Recorded decisions still waiting when the window closed (0: the backlog ran dry). */
  readonly backlogLeft: number;
  readonly backlogAtStart: number;
  /** Continuations claimed from the picker's start until every segment ended. */
  readonly claimed: number;
  /** Statements of the app's pool over the same span (pickup, continuations, heartbeats). */
  readonly statements: QueryCount;
  readonly statementsPerContinuation: number;
  /** CPU from the picker's start until every segment ended: this process and the database. */
  readonly cpu: CpuSpan;
}

/** The throughput figure beside the raw loop, then graphile-worker's where it ran. */
export function figures(
  ours: readonly Window[],
  raw: readonly ClaimLoopSample[],
  peer: readonly GraphileSample[],
  concurrency: number,
  prefetch: number,
): Figure[] {
  const ratios = ours.map((w, i) => ratio(w.perSecond, raw[i]!.perSecond));
  const r = summarize(ratios);
  const peerFigures = graphileFigures(
    ours.map((w) => w.perSecond),
    raw.map((x) => x.perSecond),
    peer,
    concurrency,
  );
  return [
    {
      name: `durable continuations per second (worker concurrency ${concurrency}, prefetch ${prefetch})`,
      unit: '/s',
      ours: summarize(ours.map((w) => w.perSecond)),
      baseline: {
        label: `raw SKIP LOCKED claim + complete, ${concurrency} clients`,
        value: summarize(raw.map((s) => s.perSecond)),
      },
      ratio: r,
      target: { text: '>= 0.5x', met: r.median >= 0.5 },
    },
    ...peerFigures,
    ...cpuFigures(ours, raw, peer),
  ];
}

/**
 * Reference figures (no target): CPU per continuation in this process and in PostgreSQL,
 * beside the same per job of graphile-worker where it ran (else the raw loop's). Both sides
 * share the bench's two cores, so the rate is bounded by their sum.
 */
function cpuFigures(
  ours: readonly Window[],
  raw: readonly ClaimLoopSample[],
  peer: readonly GraphileSample[],
): Figure[] {
  const beside: ReadonlyArray<{ cpu: CpuSpan; completed: number }> = peer.length > 0 ? peer : raw;
  const label = peer.length > 0 ? 'graphile-worker, per job' : 'raw loop, per job';
  const per = (
    side: ReadonlyArray<{ cpu: CpuSpan; completed: number }>,
    units: (i: number) => number,
    key: 'processMs' | 'databaseMs',
  ) => summarize(side.map((w, i) => cpuPer(w.cpu, units(i))[key] ?? Number.NaN));
  const out: Figure[] = [];
  for (const [key, where] of [
    ['processMs', 'this process (app and worker)'],
    ['databaseMs', 'PostgreSQL (every local postgres process)'],
  ] as const) {
    if (key === 'databaseMs' && ours.some((w) => w.cpu.databaseMs === null)) continue;
    out.push({
      name: `CPU per durable continuation, ${where}`,
      unit: 'ms',
      ours: per(ours, (i) => ours[i]!.claimed, key),
      baseline: { label, value: per(beside, (i) => beside[i]!.completed, key) },
    });
  }
  return out;
}

/** Statements per durable continuation by shape, over every window. */
export function statementShapes(ours: readonly Window[]) {
  const claimed = Math.max(
    1,
    ours.reduce((n, w) => n + w.claimed, 0),
  );
  const byShape: Record<string, number> = {};
  for (const w of ours) {
    for (const q of w.statements.byShape) byShape[q.shape] = (byShape[q.shape] ?? 0) + q.count / claimed;
  }
  return { bounds: STATEMENTS_PER_DECISION_BOUNDS, claimed, byShape };
}
