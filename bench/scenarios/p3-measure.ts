// P3's measurements: one run's steps fanned out to K graphql-ws subscribers held by the
// subscriber host, a process of their own (half admins on runEvents, half bob on runProgress),
// every frame stamped on arrival against the app's own publish of its event; and the raw `ws`
// broadcast of the same bytes beside it.
import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { RecordedDecisions } from '../../src/modules/approvals';
import { RunExecutor } from '../../src/modules/runs';
import { bootApp, untilPoolIdle, type BenchApp } from '../support/app';
import { BusTap } from '../support/bus-tap';
import type { BenchDatabase } from '../support/database';
import { approve, RUN_EVENTS, RUN_PROGRESS, startWaiting } from '../support/decisions';
import { demoIds } from '../support/demo';
import {
  END,
  fanoutFigures,
  stepKey,
  streamProblems,
  type Audience,
  type EventKey,
  type FanoutFigures,
} from '../support/fanout';
import { upsertScriptedConfiguration } from '../support/fixtures';
import type { GraphQLClient } from '../support/graphql';
import { rawClient } from '../support/pg';
import { QueryCounter, type QueryCount } from '../support/query-counter';
import { readRun, stepLog, stepLogProblems } from '../support/runs';
import type { Samples, SubscriberHost } from '../support/subscriber-host';

/** Quick read rounds after the approval: ~3 steps each (REQUEST, LLM, TOOL). */
export const ROUNDS = 10;
const TITLE = 'Fan-out title';

export interface Rig {
  readonly db: BenchDatabase;
  readonly app: BenchApp;
  readonly observer: Client;
  readonly configurationId: string;
  readonly pageId: string;
  /** Planted in the page body (read by every round) and in the model's final answer. */
  readonly sentinel: string;
  readonly owner: GraphQLClient;
  readonly approver: GraphQLClient;
  readonly queries: QueryCounter;
}

export async function prepareRig(db: BenchDatabase): Promise<Rig> {
  // why: no worker here, and reconcile only after a day: a decision recorded on the durable
  // path waits in DECISION_RECORDED until the bench carries it out (RecordedDecisions.pickUp,
  // what a worker does), so every subscriber is in place before the first step.
  const app = await bootApp(db, {
    env: { DECISION_PATH: 'inline', WORKER_ENABLED: 'false', DECISION_PICKUP_SECONDS: '86400' },
  });
  try {
    const observer = await rawClient(db.url, 'countersign-bench-observer');
    const ids = await demoIds(observer);
    const pageId = ids.pages['/products/widget']!;
    const sentinel = `SENTINEL-${randomBytes(6).toString('hex')}`;
    await observer.query(
      `UPDATE page_text SET body = $2, seo_title = $3 WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`,
      [pageId, `The widget. ${sentinel} (secret body)`, TITLE],
    );
    const configurationId = await upsertScriptedConfiguration(observer, {
      identifier: 'bench-p3-fanout',
      rounds: [
        { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: TITLE } }] },
        ...Array.from({ length: ROUNDS }, () => ({ toolCalls: [{ name: 'pages_read', arguments: {} }] })),
        { text: `Here is what the page says: ${sentinel}. Done.` },
      ],
      maxIterations: ROUNDS + 3,
      privacyLevel: 'FULL',
    });
    return {
      db,
      app,
      observer,
      configurationId,
      pageId,
      sentinel,
      owner: app.gql.as(db.tokens.alice!),
      approver: app.gql.as(db.tokens.carol!),
      queries: QueryCounter.install(),
    };
  } catch (e) {
    await app.close();
    throw e;
  }
}

export async function releaseRig(rig: Rig): Promise<void> {
  await rig.observer.end();
  await rig.app.close();
}

const FAKE_WORKER = 'bench-p3-recorder';

/**
 * A run resting in DECISION_RECORDED: started (alice), paused for approval, approved by carol
 * on the durable path. The durable path needs a live worker; a heartbeat row stands in for
 * one while the decision is recorded and is removed at once, so nothing picks it up.
 */
async function recordedRun(rig: Rig): Promise<{ runId: string; stepCount: number }> {
  const input = { configurationId: rig.configurationId, prompt: 'Read it', subjectPageId: rig.pageId };
  const run = await startWaiting(rig.owner, rig.app.gql, rig.observer, input);
  await rig.observer.query(`INSERT INTO worker_heartbeat (worker_id, name) VALUES ($1, $1)`, [FAKE_WORKER]);
  try {
    const answer = await approve(rig.approver, run, 'DURABLE');
    const r = answer.receipt;
    if (r?.path !== 'DURABLE' || r.run.status !== 'DECISION_RECORDED') {
      throw new Error(`the decision was not recorded: ${JSON.stringify(answer)}`);
    }
    return { runId: run.runId, stepCount: r.run.stepCount };
  } finally {
    await rig.observer.query('DELETE FROM worker_heartbeat WHERE worker_id = $1', [FAKE_WORKER]);
  }
}

/** One repetition at one K. */
export interface FanoutSample {
  readonly k: number;
  readonly rep: number;
  readonly runId: string;
  readonly fromStep: number;
  readonly toStep: number;
  readonly figures: FanoutFigures;
  /** One line per subscriber with problems (gaps, wrong end, errors); leaks in count-only frames. */
  readonly problems: string[];
  readonly leaks: number;
  readonly sentinelInTrace: number;
  readonly runProblems: string[];
  readonly sample: Samples;
  readonly subscribeMs: number;
  readonly queries: QueryCount;
  readonly keepAlives: number;
}

function publishTimes(tap: BusTap): Record<Audience, Map<EventKey, number>> {
  const trace = new Map<EventKey, number>();
  for (const p of tap.trace) {
    const e = p.event;
    trace.set(e.type === 'STEP' ? stepKey(e.step.sequence) : END, p.at);
  }
  const progress = new Map<EventKey, number>();
  for (const p of tap.progress) {
    if (p.event.keepAlive) continue;
    progress.set(p.event.kind === 'SETTLED' ? END : stepKey(p.event.stepCount), p.at);
  }
  return { trace, progress };
}

/** How long without any frame before a repetition counts as stalled (a run left behind). */
const STALL_MS = 60_000;

/**
 * One repetition: a recorded run, the first `k` connections of the subscriber host subscribed,
 * then the decision carried out in this process while the bus tap stamps each publish; waits
 * until every stream ended.
 */
export async function measureFanout(
  rig: Rig,
  host: SubscriberHost,
  k: number,
  rep: number,
): Promise<FanoutSample> {
  const { runId, stepCount: fromStep } = await recordedRun(rig);
  // why: before the subscribers, so its listener runs first in each publish: subscribers may
  // get their frame inside the publish itself (SharedFrames' lanes), and the stamp must not
  // come after their sends.
  const tap = await BusTap.open(rig.app, runId);
  const subscribed = await host.subscribe({
    count: k,
    runId,
    fromStep,
    sentinel: rig.sentinel,
    traceQuery: RUN_EVENTS,
    progressQuery: RUN_PROGRESS,
  });
  if (subscribed.started === 0) {
    await tap.close();
    throw new Error(`no subscription started: ${JSON.stringify(subscribed.firstErrors)}`);
  }
  // why: each runEvents start phase reads the run once more after its replay reached the
  // client; the fan-out is measured once those reads are done, not while they queue.
  await untilPoolIdle(rig.app);
  rig.queries.start();
  const executor = rig.app.app.get(RunExecutor);
  const taken = (await rig.app.app.get(RecordedDecisions).pickUp(executor.instanceId, 1)).length;
  if (taken !== 1) throw new Error(`pickUp took ${taken} recorded decisions, expected 1`);
  const { logs, samples: sample } = await host.collect(STALL_MS);
  await executor.settled(runId);
  const queries = rig.queries.stop();
  await tap.close();
  const run = await readRun(rig.observer, runId);
  const steps = await stepLog(rig.observer, runId);
  const toStep = run?.stepCount ?? NaN;
  const published = publishTimes(tap);
  const problems = logs.flatMap((l, i) => {
    const found = streamProblems(l, fromStep, toStep, 'COMPLETED');
    return found.length === 0 ? [] : [`subscriber ${i} (${l.audience}): ${found.join('; ')}`];
  });
  return {
    k,
    rep,
    runId,
    fromStep,
    toStep,
    figures: fanoutFigures(logs, published),
    problems,
    leaks: logs.reduce((n, l) => n + (l.audience === 'progress' ? l.leaks : 0), 0),
    sentinelInTrace: logs.reduce((n, l) => n + (l.audience === 'trace' ? l.sentinelFrames : 0), 0),
    runProblems: run
      ? [...(run.status === 'COMPLETED' ? [] : [`run ${run.status}`]), ...stepLogProblems(run, steps)]
      : ['run missing'],
    sample,
    subscribeMs: subscribed.ms,
    queries,
    keepAlives: logs.reduce((n, l) => n + l.keepAlives, 0),
  };
}
