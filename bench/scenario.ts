import type { BenchOptions } from './run';

export interface ScenarioResult {
  readonly scenario: string;
  readonly quick: boolean;
  readonly at: string;
  readonly database: string;
  /** Correctness checks (one winner, no leak...). A failure fails the bench, however fast. */
  readonly correct: boolean;
  readonly targetMet: boolean;
  readonly summary: string[];
  readonly figures: Record<string, unknown>;
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  run(options: BenchOptions): Promise<ScenarioResult>;
}

/** Median, min and max of a sample. */
export function stats(values: number[]): { median: number; min: number; max: number; p99: number } {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))] ?? NaN;
  return { median: at(0.5), min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN, p99: at(0.99) };
}
