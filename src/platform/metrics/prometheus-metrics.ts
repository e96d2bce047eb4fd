import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  DecisionKindLabel,
  DecisionPathLabel,
  IdentitySignInLabel,
  Metrics,
  RunCensus,
  WebhookOutcomeLabel,
} from './metrics';

/**
 * The metrics in Prometheus' text format (prom-client), on a registry of this application's
 * own (several applications in one process, as in the tests, never share a series).
 */
export class PrometheusMetrics extends Metrics {
  readonly registry = new Registry();
  private census: (() => Promise<RunCensus>) | null = null;
  private openSubscriptions: () => number = () => 0;

  private readonly decisions = new Counter({
    name: 'countersign_decisions_total',
    help: 'Decisions taken (approveRun, denyRun, submitRunInput and their chat forms), by kind and path',
    labelNames: ['outcome', 'path'],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'countersign_refusals_total',
    help: 'Errors answered to clients with a contract code (refusals and bad input), by code',
    labelNames: ['code'],
    registers: [this.registry],
  });
  private readonly faults = new Counter({
    name: 'countersign_faults_total',
    help: 'Errors answered INTERNAL_SERVER_ERROR (logged with their correlation id)',
    registers: [this.registry],
  });
  private readonly segments = new Histogram({
    name: 'countersign_run_segment_duration_seconds',
    help: 'Time a run segment ran under its lease: a start, or the continuation of a decision',
    labelNames: ['segment', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  private readonly steps = new Histogram({
    name: 'countersign_step_duration_seconds',
    help: 'Time a recorded step took (model call, tool call, decision), by kind',
    labelNames: ['kind'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly retention = new Counter({
    name: 'countersign_retention_removed_total',
    help: 'What the retention sweep deleted: finished runs (with their steps and decisions), runs stripped of their steps, steps',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly slowCloses = new Counter({
    name: 'countersign_slow_client_closes_total',
    help: 'graphql-ws clients closed with 4413 because they did not read their frames (WS_MAX_BUFFERED_BYTES)',
    registers: [this.registry],
  });
  private readonly runs = new Gauge({
    name: 'countersign_runs',
    help: 'Runs not yet finished, by status (read from the database at each scrape)',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly waiting = new Gauge({
    name: 'countersign_waiting_runs',
    help: 'Runs waiting for a person (approval or input)',
    registers: [this.registry],
  });
  private readonly oldestWait = new Gauge({
    name: 'countersign_oldest_waiting_run_age_seconds',
    help: 'How long the longest-waiting run has waited for a person; 0 when none waits',
    registers: [this.registry],
  });
  private readonly queueDepth = new Gauge({
    name: 'countersign_decision_queue_depth',
    help: 'Recorded decisions (durable path) waiting for a worker to carry them out',
    registers: [this.registry],
  });
  private readonly liveWorkers = new Gauge({
    name: 'countersign_live_workers',
    help: 'Workers whose heartbeat is fresh (WORKER_LIVENESS_SECONDS)',
    registers: [this.registry],
  });

  private readonly identitySignIns = new Counter({
    name: 'countersign_identity_sign_ins_total',
    help: 'Bearer JWTs of the identity provider checked: signed_in, created (a first sign-in made the user) or refused',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  private readonly tokens = new Counter({
    name: 'countersign_tokens_total',
    help: 'Tokens model calls reported, by configuration identifier and kind (input, output)',
    labelNames: ['configuration', 'kind'],
    registers: [this.registry],
  });
  private readonly budgetStops = new Counter({
    name: 'countersign_runs_stopped_by_budget_total',
    help: 'Runs stopped at a token cap (BUDGET_EXHAUSTED), by configuration identifier and cap (run, day)',
    labelNames: ['configuration', 'cap'],
    registers: [this.registry],
  });

  private readonly webhookTries = new Counter({
    name: 'countersign_webhook_deliveries_total',
    help: 'Webhook tries by outcome: succeeded, retried (failed, tried again later) or failed (given up)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  private readonly webhookLatency = new Histogram({
    name: 'countersign_webhook_delivery_seconds',
    help: 'From the event committed to the receiver answering 2xx, in seconds (retries included)',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: [this.registry],
  });

  constructor() {
    super();
    const read = () => this.openSubscriptions();
    new Gauge({
      name: 'countersign_open_subscriptions',
      help: 'Operations open over graphql-ws on this instance (subscriptions, almost all)',
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  decisionTaken(kind: DecisionKindLabel, path: DecisionPathLabel): void {
    this.decisions.inc({ outcome: kind, path });
  }

  errorAnswered(code: string): void {
    if (code === 'INTERNAL_SERVER_ERROR') this.faults.inc();
    else this.refusals.inc({ code });
  }

  segmentFinished(segment: 'start' | 'continuation', outcome: string, seconds: number): void {
    this.segments.observe({ segment, outcome }, seconds);
  }

  stepRecorded(kind: string, seconds: number): void {
    this.steps.observe({ kind }, seconds);
  }

  retentionRemoved(removed: { runs: number; strippedRuns: number; steps: number }): void {
    this.retention.inc({ kind: 'runs' }, removed.runs);
    this.retention.inc({ kind: 'stripped_runs' }, removed.strippedRuns);
    this.retention.inc({ kind: 'steps' }, removed.steps);
  }

  slowClientClosed(): void {
    this.slowCloses.inc();
  }

  tokensUsed(configuration: string, tokens: { input: number; output: number }): void {
    this.tokens.inc({ configuration, kind: 'input' }, tokens.input);
    this.tokens.inc({ configuration, kind: 'output' }, tokens.output);
  }

  runStoppedByBudget(configuration: string, cap: 'RUN' | 'DAY'): void {
    this.budgetStops.inc({ configuration, cap: cap.toLowerCase() });
  }

  watchOpenSubscriptions(read: () => number): void {
    this.openSubscriptions = read;
  }

  watchCensus(read: () => Promise<RunCensus>): void {
    this.census = read;
  }

  identitySignIn(outcome: IdentitySignInLabel): void {
    this.identitySignIns.inc({ outcome });
  }

  webhookDelivered(outcome: WebhookOutcomeLabel, seconds: number): void {
    this.webhookTries.inc({ outcome });
    if (outcome === 'succeeded') this.webhookLatency.observe(seconds);
  }

  /** The text a scrape gets: the database's figures read once, then every series. */
  async render(): Promise<string> {
    if (this.census) this.record(await this.census());
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private record(census: RunCensus): void {
    // why: the census names every unfinished status (the runs module's list), 0 or not, so
    // each keeps a `countersign_runs` series and the metrics keep no list of their own.
    for (const [status, n] of Object.entries(census.unfinishedByStatus)) this.runs.set({ status }, n);
    this.waiting.set(census.waiting);
    this.oldestWait.set(census.oldestWaitingSeconds ?? 0);
    this.queueDepth.set(census.decisionsRecorded);
    this.liveWorkers.set(census.liveWorkers);
  }
}
