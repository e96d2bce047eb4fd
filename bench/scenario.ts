import type { BenchOptions, Environment } from './support/env';
import type { Check, Figure } from './support/report';

/** What a scenario measured; the runner adds the verdicts and writes the results file. */
export interface ScenarioOutcome {
  /** The scenario's own database (created and dropped by it). */
  readonly database: string;
  readonly environment: Environment;
  /** Correctness (one winner, no gap, no leak...). A failure fails the bench, however fast. */
  readonly checks: Check[];
  /** The headline figures: ours, the baseline measured beside it, ratio, target. */
  readonly figures: Figure[];
  /** Everything else worth keeping (per-run samples, breakdowns). */
  readonly details: Record<string, unknown>;
}

/** One results file: bench/results/<id>[-quick].json. */
export interface ScenarioResult extends ScenarioOutcome {
  readonly scenario: string;
  readonly title: string;
  readonly quick: boolean;
  readonly at: string;
  readonly command: string;
  readonly durationMs: number;
  readonly correct: boolean;
  /** Every figure with a target met (informational: only `correct` decides the exit code). */
  readonly targetMet: boolean;
  readonly summary: string[];
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  run(options: BenchOptions): Promise<ScenarioOutcome>;
}
