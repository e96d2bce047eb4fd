import { round, type Summary } from './stats';

/** A correctness check: a failure fails the bench (exit 1), however fast the figures. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** One reported figure: ours, the baseline measured beside it, their ratio, the target. */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly ours: Summary;
  readonly baseline?: { readonly label: string; readonly value: Summary };
  /** ours / baseline, per repetition (side by side), summarised. */
  readonly ratio?: Summary;
  readonly target?: { readonly text: string; readonly met: boolean };
}

export const fmt = (n: number): string => (Number.isFinite(n) ? String(round(n)) : 'n/a');

const spread = (s: Summary): string => `${fmt(s.median)} (min ${fmt(s.min)}, max ${fmt(s.max)}, n=${s.n})`;

/** The console line of a figure. */
export function figureLine(f: Figure): string {
  const parts = [`${f.name}: ${spread(f.ours)} ${f.unit}`];
  if (f.baseline) parts.push(`baseline ${f.baseline.label} ${spread(f.baseline.value)} ${f.unit}`);
  if (f.ratio) parts.push(`ratio ${fmt(f.ratio.median)}x (${fmt(f.ratio.min)}..${fmt(f.ratio.max)})`);
  if (f.target) parts.push(`target ${f.target.text}: ${f.target.met ? 'met' : 'NOT MET'}`);
  return parts.join(' | ');
}

export function checkLine(c: Check): string {
  return `[${c.ok ? 'ok' : 'FAIL'}] ${c.name}${c.detail ? `: ${c.detail}` : ''}`;
}

/** A check over many items: ok when none failed; the detail names the first few failures. */
export function checkAll(name: string, total: number, problems: readonly string[]): Check {
  const shown = problems.slice(0, 5).join('; ');
  return {
    name,
    ok: problems.length === 0,
    detail: problems.length === 0 ? `${total}/${total}` : `${problems.length} of ${total} failed: ${shown}`,
  };
}
