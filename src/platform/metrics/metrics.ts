/**
 * What the application tells operators (`GET /metrics`, docs/operations.md "Metrics"): a port
 * the places that decide, refuse, execute and stream call, so none of them knows Prometheus.
 * The figures that live in the database (runs by status, waits, queue, workers) are not pushed
 * but read when scraped, from the census a module registers with `watchCensus`.
 */
export abstract class Metrics {
  /** A decision was claimed (inline) or recorded (durable), counted once it committed. */
  abstract decisionTaken(kind: DecisionKindLabel, path: DecisionPathLabel): void;
  /** An error a client received, by its `extensions.code` (INTERNAL_SERVER_ERROR is a fault). */
  abstract errorAnswered(code: string): void;
  /** A run segment ended under its lease: a start, or the continuation of a decision. */
  abstract segmentFinished(segment: 'start' | 'continuation', outcome: string, seconds: number): void;
  /** A step the runtime recorded, with the time it took. */
  abstract stepRecorded(kind: string, seconds: number): void;
  /** The retention sweep removed finished runs (with their steps) or only their steps. */
  abstract retentionRemoved(removed: { runs: number; strippedRuns: number; steps: number }): void;
  /** A graphql-ws client was closed for reading too slowly (4413, docs/streaming.md). */
  abstract slowClientClosed(): void;
  /** Reads the operations open over graphql-ws at each scrape. */
  abstract watchOpenSubscriptions(read: () => number): void;
  /** Reads the run and worker figures from the database at each scrape. */
  abstract watchCensus(read: () => Promise<RunCensus>): void;
  /** A bearer JWT of the identity provider was checked: signed in (a user created or not) or refused. */
  abstract identitySignIn(outcome: IdentitySignInLabel): void;
  /** Tokens a model call reported, by configuration identifier. */
  abstract tokensUsed(configuration: string, tokens: { input: number; output: number }): void;
  /** A run stopped at a token cap (BUDGET_EXHAUSTED): its own or its owner's daily one. */
  abstract runStoppedByBudget(configuration: string, cap: 'RUN' | 'DAY'): void;
  /**
   * A webhook try ended: succeeded, retried (failed, tried again later) or failed (given up);
   * `seconds` since its event committed (the latency of a successful delivery).
   */
  abstract webhookDelivered(outcome: WebhookOutcomeLabel, seconds: number): void;
}

export type WebhookOutcomeLabel = 'succeeded' | 'retried' | 'failed';

export type IdentitySignInLabel = 'signed_in' | 'created' | 'refused';

export type DecisionKindLabel = 'approve' | 'deny' | 'input';
export type DecisionPathLabel = 'inline' | 'durable';

/** The database's figures at a scrape. */
export interface RunCensus {
  /**
   * Runs not yet finished, by status, every unfinished status present (0 where none is in it);
   * finished runs only ever grow: not counted.
   */
  readonly unfinishedByStatus: Readonly<Record<string, number>>;
  /** Runs waiting for a person (approval or input). */
  readonly waiting: number;
  /** Decisions recorded for the durable path, not yet taken by a worker. */
  readonly decisionsRecorded: number;
  /** Seconds the longest-waiting run (approval or input) has waited; null when none waits. */
  readonly oldestWaitingSeconds: number | null;
  readonly liveWorkers: number;
}

/** Metrics switched off (`METRICS_ENABLED=false`, and the worker process): records nothing. */
export class NoMetrics extends Metrics {
  decisionTaken(): void {}
  errorAnswered(): void {}
  segmentFinished(): void {}
  stepRecorded(): void {}
  retentionRemoved(): void {}
  slowClientClosed(): void {}
  watchOpenSubscriptions(): void {}
  watchCensus(): void {}
  identitySignIn(): void {}
  tokensUsed(): void {}
  runStoppedByBudget(): void {}
  webhookDelivered(): void {}
}
