import { summarize, type Summary } from '../support/stats';
import type { RssSample } from './cluster';

/** "No growth" allows this much (GC and allocator noise between two windows). */
export const GROWTH_ALLOWANCE = 0.05;
/** Shorter chaos is reported without a verdict: its first window is the process warming up. */
export const JUDGED_FROM_MINUTES = 3;
/** The windows compared: the first and the last minute of the chaos (halves when shorter than 2 minutes). */
const WINDOW_MS = 60_000;

/** The probe's resident set over the chaos: first against last window, and the trend. */
export interface MemoryGrowth {
  readonly member: string;
  readonly windowSeconds: number;
  readonly first: Summary;
  readonly last: Summary;
  /** Median of the last window less the median of the first, MB. */
  readonly growthMb: number;
  readonly growthRatio: number;
  /** Least-squares slope over every sample of the chaos, MB per minute. */
  readonly slopeMbPerMinute: number;
  /** Null where the chaos was too short to judge (under JUDGED_FROM_MINUTES). */
  readonly met: boolean | null;
}

function slope(points: ReadonlyArray<{ x: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  return sxx > 0 ? sxy / sxx : NaN;
}

/**
 * The growth of one process's resident set between the first and the last window of the
 * chaos (samples of one pid only: a restarted process starts over). Null without samples.
 */
export function memoryGrowth(
  samples: readonly RssSample[],
  member: string,
  from: number,
  to: number,
): MemoryGrowth | null {
  const own = samples.filter((s) => s.member === member && s.t >= from && s.t <= to);
  const pid = own[0]?.pid;
  const series = own.filter((s) => s.pid === pid);
  if (series.length < 2) return null;
  const window = Math.min(WINDOW_MS, (to - from) / 2);
  const first = summarize(series.filter((s) => s.t <= from + window).map((s) => s.rssMb));
  const last = summarize(series.filter((s) => s.t >= to - window).map((s) => s.rssMb));
  const growthMb = last.median - first.median;
  return {
    member,
    windowSeconds: window / 1000,
    first,
    last,
    growthMb,
    growthRatio: growthMb / first.median,
    slopeMbPerMinute: slope(series.map((s) => ({ x: s.t / 60_000, y: s.rssMb }))),
    met: to - from >= JUDGED_FROM_MINUTES * 60_000 ? growthMb <= first.median * GROWTH_ALLOWANCE : null,
  };
}
