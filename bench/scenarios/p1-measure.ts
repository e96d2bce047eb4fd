// P1's measurements: one decision on a waiting run, watched by a subscriber that was already
// subscribed, and the baselines beside it (one raw conditional-UPDATE commit, one raw
// WebSocket echo round trip, one authenticated GraphQL query over HTTP). The decider and its
// subscriber run in a process of their own (the client host), as a real client does on its
// own machine, or in the app's process, the instrument of the rounds before (both are reported).
import { performance } from 'node:perf_hooks';
import type { Client } from 'pg';
import { bootApp, type BenchApp } from '../support/app';
import { CommitBaseline } from '../support/baseline';
import { BusTap } from '../support/bus-tap';
import type { BenchDatabase } from '../support/database';
import { decideWatched, watch, type ClientDecision, type ProgressFrame } from '../support/decider-client';
import { startWaiting, type Answer, type WaitingRun } from '../support/decisions';
import { demoIds, type DemoIds } from '../support/demo';
import type { GraphQLClient } from '../support/graphql';
import { rawClient } from '../support/pg';
import { involuntarySwitches } from '../support/preemptions';
import { QueryCounter, type QueryCount } from '../support/query-counter';
import { scopeContinuations, scopeHttpRequests, scopeSubscriberChecks } from '../support/statement-scopes';
import { RunExecutor, StateVault } from '../../src/modules/runs';
import { cloneWaitingRuns } from '../support/clones';
import { upsertScriptedConfiguration } from '../support/fixtures';
import { EDITOR_ROUNDS } from '../../src/demo/demo-data';
import { EchoRig } from '../support/raw-ws';
import { ServerClock } from '../support/server-clock';
import { msSince } from '../support/stats';
import { SubscriberHost } from '../support/subscriber-host';
import { GqlWsConnection } from '../support/ws-subscriber';

export interface Rig {
  readonly db: BenchDatabase;
  readonly app: BenchApp;
  readonly observer: Client;
  readonly ids: DemoIds;
  readonly commits: CommitBaseline;
  readonly echo: EchoRig;
  readonly queries: QueryCounter;
  /** The run owner (alice): starts runs, and subscribes to their progress. */
  readonly owner: GraphQLClient;
  /** The approver (carol: editors + approvers). */
  readonly approver: GraphQLClient;
  /** The subscriber's connection (alice), open for the whole scenario. */
  readonly subscriber: GqlWsConnection;
  /** The app's HTTP requests as its server saw them. */
  readonly serverClock: ServerClock;
  /** The same approver and subscriber in a process of their own, with an echo client. */
  readonly host: SubscriberHost;
}

/** Where a decision's client runs: a process of its own, or the app's (sharing its event loop). */
export type ClientSide = 'own' | 'app';

/** Every other decision from the client host's process, the rest from the app's. */
export const sideOf = (i: number): ClientSide => (i % 2 === 0 ? 'own' : 'app');

export async function prepareRig(db: BenchDatabase): Promise<Rig> {
  // why: inline decisions continue in this process, so the first event of the continuation
  // is published by the request that decided (docs/decisions.md, "Two paths").
  const app = await bootApp(db, { env: { DECISION_PATH: 'inline' } });
  const opened: Array<{ close(): Promise<void> }> = [app];
  try {
    const observer = await rawClient(db.url, 'countersign-bench-observer');
    opened.push({ close: () => observer.end() });
    const commits = await CommitBaseline.open(db.url);
    opened.push(commits);
    const echo = await EchoRig.open();
    opened.push(echo);
    const subscriber = await GqlWsConnection.open(app.wsUrl, db.tokens.alice!);
    const host = await SubscriberHost.start();
    opened.push({ close: () => host.stop() });
    await host.deciderOpen({
      httpUrl: app.gql.url,
      wsUrl: app.wsUrl,
      approverToken: db.tokens.carol!,
      subscriberToken: db.tokens.alice!,
      echoUrl: echo.url,
    });
    const queries = QueryCounter.install();
    scopeHttpRequests(app.app, queries);
    scopeContinuations(app.app, queries);
    scopeSubscriberChecks(app.app, queries);
    return {
      db,
      app,
      observer,
      ids: await demoIds(observer),
      commits,
      echo,
      queries,
      owner: app.gql.as(db.tokens.alice!),
      approver: app.gql.as(db.tokens.carol!),
      subscriber,
      serverClock: new ServerClock(app.app.getHttpServer()),
      host,
    };
  } catch (e) {
    for (const o of opened.reverse()) await o.close().catch(() => undefined);
    throw e;
  }
}

export async function releaseRig(rig: Rig): Promise<void> {
  rig.serverClock.close();
  await rig.host.deciderClose();
  await rig.host.stop();
  await rig.subscriber.close();
  await rig.echo.close();
  await rig.commits.close();
  await rig.observer.end();
  await rig.app.close();
  rig.queries.endScopes();
}

/** One decision as P1 saw it. */
export interface DecisionSample {
  readonly rep: number;
  readonly runId: string;
  readonly client: ClientSide;
  readonly answer: Answer;
  /** approveRun sent .. receipt parsed (client view). */
  readonly receiptMs: number;
  /** approveRun sent .. the first PROGRESS of the continuation at the subscriber. */
  readonly firstEventMs: number;
  /** approveRun sent .. that event's publish in the app (the bus tap: after the claim committed). */
  readonly publishMs: number;
  /** That event's publish .. its frame at the subscriber (the delivery alone). */
  readonly deliveryMs: number;
  /** In the server: the request arrived .. its response (the receipt) left for the socket. */
  readonly serverReceiptMs: number;
  /** In the server: the request arrived .. that event's publish (its frame is written inside it). */
  readonly serverFirstEventMs: number;
  /**
   * Statements of the app's pool from the request until the run settled, by scope: `request`
   * (the HTTP request: token check .. receipt), `continuation` (the segment it launched, up to
   * the settle), `other` (the subscriber's re-checks, timers).
   */
  readonly queries: QueryCount;
  /**
   * Times the app's thread was switched out while still runnable, from just before the request
   * until the run settled (`involuntarySwitches`); NaN where the system does not tell.
   */
  readonly preemptions: number;
  /** The frames the subscriber got (snapshot first), and how its stream ended. */
  readonly frames: ProgressFrame[];
  readonly streamErrors: unknown[];
}

/**
 * Subscribes to the run's progress (and waits for the snapshot), decides it over HTTP from the
 * given side, and waits until the subscriber's stream ends (SETTLED), so no continuation
 * overlaps the next measurement. Every time is on this process' `performance.now()` clock.
 */
export async function measureDecision(
  rig: Rig,
  run: WaitingRun,
  rep: number,
  client: ClientSide,
): Promise<DecisionSample> {
  const decideWatchedRun = client === 'app' ? await inApp(rig, run) : await inHost(rig, run);
  const tap = await BusTap.open(rig.app, run.runId);
  rig.queries.start();
  rig.serverClock.reset();
  const switchesBefore = involuntarySwitches();
  const seen = await decideWatchedRun();
  // why: the settle commits before SETTLED is published; this also covers anything after it.
  await rig.app.app.get(RunExecutor).settled(run.runId);
  const switchesAfter = involuntarySwitches();
  const queries = rig.queries.stop();
  await tap.close();
  const published = tap.firstProgress((e) => e.kind === 'PROGRESS' && e.stepCount > run.stepCount);
  // why: approveRun is the only HTTP request of the window (the subscriber is on its socket).
  const served = rig.serverClock.requests();
  const request = served.length === 1 ? served[0]! : { arrivedAt: NaN, finishedAt: NaN };
  return {
    rep,
    runId: run.runId,
    client,
    answer: seen.answer,
    receiptMs: seen.receiptAt - seen.sentAt,
    firstEventMs: seen.firstAt - seen.sentAt,
    publishMs: (published?.at ?? NaN) - seen.sentAt,
    deliveryMs: seen.firstAt - (published?.at ?? NaN),
    serverReceiptMs: request.finishedAt - request.arrivedAt,
    serverFirstEventMs: (published?.at ?? NaN) - request.arrivedAt,
    queries,
    preemptions: switchesBefore === null || switchesAfter === null ? NaN : switchesAfter - switchesBefore,
    frames: seen.frames,
    streamErrors: seen.streamErrors,
  };
}

/** Workspaces of the warm-up's copies: far from the demo's, one per copy (see `warmUp`). */
const WARM_WORKSPACES_FROM = 100_000;

/** demo-editor's rounds with its answer in one piece: the warm-up's decisions need no pauses. */
const WARM_ROUNDS = EDITOR_ROUNDS.map((round) => ('text' in round ? { text: round.text } : round));

/**
 * Brings the app to the state a server that has been up for a while is in, before anything is
 * measured: `count` decisions on copies of one waiting run (`cloneWaitingRuns`, each in its own
 * workspace so no write changes another copy's preview) of a configuration with demo-editor's
 * rounds, each through the same path as a measured one (subscribed, decided from either side in
 * turn, followed to its settle), nothing recorded. Why so many: V8 optimises a function after
 * enough calls, and a decision runs hundreds of functions once each; on the bench's machine the
 * receipt kept falling for the first 2,000 decisions after boot (bench/README.md, "Issue 13,
 * twentieth round").
 */
export async function warmUp(rig: Rig, count: number): Promise<void> {
  if (count <= 0) return;
  const configurationId = await upsertScriptedConfiguration(rig.observer, {
    identifier: 'bench-p1-warm-up',
    rounds: WARM_ROUNDS,
    maxIterations: 3,
  });
  const template = await startWaiting(rig.owner, rig.app.gql, rig.observer, {
    configurationId,
    prompt: 'SEO please',
  });
  const workspaces = Array.from({ length: count }, (_, i) => WARM_WORKSPACES_FROM + i);
  const ids = await cloneWaitingRuns(rig.observer, rig.app.app.get(StateVault), template.runId, workspaces);
  for (const [i, runId] of ids.entries()) {
    const sample = await measureDecision(rig, { ...template, runId }, 0, sideOf(i));
    const problems = decisionProblems(sample);
    if (problems.length > 0) throw new Error(`warm-up decision failed: ${problems.join('; ')}`);
  }
}

/** The decider in this process: watched now, decided when the returned function is called. */
async function inApp(rig: Rig, run: WaitingRun): Promise<() => Promise<ClientDecision>> {
  const watching = await watch(rig.subscriber, run, (at) => at);
  return () => decideWatched(watching, rig.approver, () => performance.now());
}

/** The decider in the client host's process: the same, over its IPC channel. */
async function inHost(rig: Rig, run: WaitingRun): Promise<() => Promise<ClientDecision>> {
  await rig.host.watch(run);
  return () => rig.host.decide();
}

/** Problems with one decision: receipt, frames, stream end. */
export function decisionProblems(s: DecisionSample): string[] {
  const problems: string[] = [];
  const r = s.answer.receipt;
  if (!r) problems.push(`run ${s.runId}: no receipt (HTTP ${s.answer.status}, ${s.answer.codes.join(',')})`);
  else if (r.path !== 'INLINE' || r.decision.kind !== 'APPROVE' || r.run.status !== 'RUNNING') {
    problems.push(`run ${s.runId}: receipt ${r.path} ${r.decision.kind} ${r.run.status}`);
  }
  if (!Number.isFinite(s.firstEventMs)) problems.push(`run ${s.runId}: no continuation event`);
  const last = s.frames[s.frames.length - 1];
  if (last?.kind !== 'SETTLED' || last.status !== 'COMPLETED') {
    problems.push(
      `run ${s.runId}: stream ended with ${JSON.stringify(last)} ${JSON.stringify(s.streamErrors)}`,
    );
  }
  return problems;
}

/** One repetition's baselines. */
export interface BaselineSample {
  readonly rep: number;
  /** One conditional UPDATE in autocommit (synchronous commit), ms each. */
  readonly commitMs: number[];
  readonly commitFailures: number;
  /** One raw `ws` echo round trip within this process, ms each. */
  readonly echoMs: number[];
  /** The same from the client host's process to the echo server in this one. */
  readonly echoOwnMs: number[];
  /** `{ viewer { id } }` over HTTP as the approver: HTTP + GraphQL + token check, no decision. */
  readonly viewerMs: number[];
  /** `SELECT 1` through the app's own DataSource (TypeORM + its pool): one statement's cost there. */
  readonly appStatementMs: number[];
}

const VIEWER = `query BenchViewer { viewer { user { id } } }`;

export async function measureBaseline(rig: Rig, count: number, rep: number): Promise<BaselineSample> {
  const commits = await rig.commits.updates(count);
  const echoMs = await rig.echo.roundTrips(count, 200);
  const echoOwnMs = await rig.host.echo(count, 200);
  const viewerMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const mark = process.hrtime.bigint();
    await rig.approver.must(VIEWER);
    viewerMs.push(msSince(mark));
  }
  const appStatementMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const mark = process.hrtime.bigint();
    await rig.app.dataSource.query('SELECT 1');
    appStatementMs.push(msSince(mark));
  }
  return {
    rep,
    commitMs: commits.latenciesMs,
    commitFailures: commits.failures,
    echoMs,
    echoOwnMs,
    viewerMs,
    appStatementMs,
  };
}
