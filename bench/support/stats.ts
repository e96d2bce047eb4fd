/** Median, spread and tail of a sample: what every bench figure reports. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly p99: number;
}

/** The q-quantile (0..1) of an ascending sample, linearly interpolated; NaN when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = Math.min(1, Math.max(0, q)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export function summarize(values: readonly number[]): Summary {
  const s = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const sum = s.reduce((acc, v) => acc + v, 0);
  return {
    n: s.length,
    median: quantile(s, 0.5),
    min: s[0] ?? NaN,
    max: s[s.length - 1] ?? NaN,
    mean: s.length > 0 ? sum / s.length : NaN,
    p99: quantile(s, 0.99),
  };
}

/** a / b, NaN when b is not a positive number. */
export function ratio(a: number, b: number): number {
  return b > 0 && Number.isFinite(a) && Number.isFinite(b) ? a / b : NaN;
}

/** A number rounded for JSON and console output (significant digits kept for small values). */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const abs = Math.abs(value);
  if (abs < 1) return Number(value.toPrecision(digits + 1));
  const f = 10 ** (abs >= 100 ? 1 : digits - 1);
  return Math.round(value * f) / f;
}

/** Elapsed milliseconds since a `process.hrtime.bigint()` mark. */
export function msSince(mark: bigint): number {
  return Number(process.hrtime.bigint() - mark) / 1e6;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A JSON-able value with every number rounded (summaries to 3-4 significant digits). */
export function roundDeep(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? round(value, 4) : null;
  if (Array.isArray(value)) return value.map(roundDeep);
  if (value instanceof Map) return roundDeep(Object.fromEntries(value));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundDeep(v)]));
  }
  return value;
}
