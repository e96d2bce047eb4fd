// P8's measurements: one chat answer streamed by the scripted provider to K graphql-ws
// subscribers of `conversationEvents` in this process. Every piece of text the provider hands
// the runtime is stamped (performance.now(), the clock the subscribers stamp arrivals with),
// so a TEXT_DELTA's latency is its arrival minus the production of its first character.
import { performance } from 'node:perf_hooks';
import type { Client } from 'pg';
import { AnswerStream } from '../../src/modules/runs/application/live-answers';
import { bootApp, type BenchApp } from '../support/app';
import type { BenchDatabase } from '../support/database';
import { upsertScriptedConfiguration } from '../support/fixtures';
import type { GraphQLClient } from '../support/graphql';
import { sleep } from '../support/stats';
import {
  openConnections,
  type GqlWsConnection,
  type WsMessage,
  type WsSubscription,
} from '../support/ws-subscriber';

const EVENTS = `subscription($id: ID!) { conversationEvents(conversationId: $id) {
  kind status delta { messageId turn offset text final } } }`;
const CREATE = `mutation { createConversation(input: {}) { id } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { lastRunId } }`;
const STATUS = `query($id: ID!) { conversation(id: $id) { status } }`;

/** How one phase streams: the provider's pace and the app's coalescing window. */
export interface Pace {
  readonly label: string;
  /** TEXT_DELTA_COALESCE_MS of the app. */
  readonly windowMs: number;
  readonly chunks: number;
  readonly chunkDelayMs: number;
  /** The provider waits this long before its first chunk (every subscriber follows the run by then). */
  readonly leadMs: number;
}

interface Delta {
  readonly messageId: string;
  readonly turn: number;
  readonly offset: number;
  readonly text: string;
  readonly final: boolean;
}

/** One TEXT_DELTA frame as a subscriber got it. */
export interface Arrival {
  readonly at: number;
  readonly raw: string;
  readonly delta: Delta;
}

/** Text the provider handed the runtime: characters [from, to) of the answer, at `at`. */
interface Produced {
  readonly at: number;
  readonly from: number;
  readonly to: number;
}

/** What one streamed answer delivered. */
export interface TurnSample {
  readonly k: number;
  readonly runId: string;
  readonly answer: string;
  /** Per subscriber, its first delta's arrival minus the production of the answer's first character, ms. */
  readonly firstDeltaMs: number[];
  /** Per delivered delta, arrival minus the production of its first character, ms. */
  readonly deltaMs: number[];
  readonly deliveries: number;
  /** Deliveries per second, from the first character's production to the last arrival. */
  readonly rate: number;
  /** The frames subscriber 0 got, as they came off its socket (the raw baseline's bytes). */
  readonly frames: string[];
  /** Subscribers whose text was not the answer exactly once (gap, repeat, no final). */
  readonly problems: string[];
  /** Subscribers whose first delta was the catch-up snapshot rather than a live delta. */
  readonly joinedLate: number;
}

export interface Rig {
  readonly app: BenchApp;
  readonly alice: GraphQLClient;
  readonly conversationId: string;
  readonly connections: GqlWsConnection[];
  readonly subscriptions: WsSubscription[];
  /** Per subscriber, its TEXT_DELTA frames since the last reset. */
  readonly arrivals: Arrival[][];
  readonly pace: Pace;
}

/**
 * Boots the app with the pace's window, points the chat's task at a configuration that
 * streams `answer`, opens a conversation for alice and K subscriptions to it (one token, as
 * one person's sessions share theirs).
 */
export async function prepareRig(
  db: BenchDatabase,
  observer: Client,
  pace: Pace,
  answer: string,
  k: number,
): Promise<Rig> {
  const configurationId = await upsertScriptedConfiguration(observer, {
    identifier: 'bench-p8-stream',
    rounds: [{ delayMs: pace.leadMs, text: answer, chunks: pace.chunks, chunkDelayMs: pace.chunkDelayMs }],
    maxIterations: 3,
    privacyLevel: 'NONE',
  });
  await observer.query(`UPDATE task SET configuration_id = $1 WHERE identifier = 'default'`, [
    configurationId,
  ]);
  const app = await bootApp(db, {
    env: {
      WORKER_ENABLED: 'false',
      DECISION_PATH: 'inline',
      TEXT_DELTA_COALESCE_MS: String(pace.windowMs),
      CHAT_MAX_ACTIVE_CONVERSATIONS: '100000',
    },
  });
  try {
    const alice = app.gql.as(db.tokens.alice!);
    const { createConversation } = await alice.must<{ createConversation: { id: string } }>(CREATE);
    const connections = await openConnections(app.wsUrl, k, () => db.tokens.alice!);
    const arrivals: Arrival[][] = connections.map(() => []);
    const subscriptions = connections.map((c, i) =>
      c.subscribe(EVENTS, { id: createConversation.id }, (raw, message, at) => {
        const delta = deltaOf(message);
        if (delta) arrivals[i]!.push({ at, raw, delta });
      }),
    );
    return { app, alice, conversationId: createConversation.id, connections, subscriptions, arrivals, pace };
  } catch (e) {
    await app.close();
    throw e;
  }
}

export async function releaseRig(rig: Rig): Promise<void> {
  await Promise.all(rig.connections.map((c) => c.close()));
  await rig.app.close();
}

function deltaOf(message: WsMessage): Delta | null {
  const data = (message.payload as { data?: { conversationEvents?: { kind: string; delta: Delta | null } } })
    ?.data?.conversationEvents;
  return data?.kind === 'TEXT_DELTA' && data.delta ? data.delta : null;
}

/**
 * Stamps every piece of text the provider hands the runtime. why: the runtime passes each
 * provider delta synchronously to `AnswerStream.push`, so its entry is the provider's
 * production time; the app runs in this process, on the subscribers' clock.
 */
function stampProduction(): { produced: Map<string, Produced[]>; restore(): void } {
  const produced = new Map<string, Produced[]>();
  const proto = AnswerStream.prototype;
  const original = Object.getOwnPropertyDescriptor(proto, 'push')!.value as (text: string) => void;
  proto.push = function (this: AnswerStream, text: string): void {
    const list = produced.get(this.runId) ?? [];
    const from = list.length > 0 ? list[list.length - 1]!.to : 0;
    if (text.length > 0) list.push({ at: performance.now(), from, to: from + text.length });
    produced.set(this.runId, list);
    original.call(this, text);
  };
  return { produced, restore: () => void (proto.push = original) };
}

/** Streams one turn's answer to every subscriber; waits until each has the final delta. */
export async function measureTurn(rig: Rig, answer: string, timeoutMs = 120_000): Promise<TurnSample> {
  for (const a of rig.arrivals) a.length = 0;
  const stamps = stampProduction();
  let runId: string;
  try {
    const sent = await rig.alice.must<{ sendMessage: { lastRunId: string } }>(SEND, {
      input: { conversationId: rig.conversationId, text: 'Tell me everything' },
    });
    runId = sent.sendMessage.lastRunId;
    const deadline = Date.now() + timeoutMs;
    const finished = (a: Arrival[]) => a.some((x) => x.delta.final && x.delta.messageId === runId);
    while (!rig.arrivals.every(finished) && Date.now() < deadline) await sleep(5);
  } finally {
    stamps.restore();
  }
  await untilIdle(rig);
  return sampleOf(rig, runId, answer, stamps.produced.get(runId) ?? []);
}

/** The next turn is refused while this one runs: wait for the conversation to settle. */
async function untilIdle(rig: Rig): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { conversation } = await rig.alice.must<{ conversation: { status: string } }>(STATUS, {
      id: rig.conversationId,
    });
    if (conversation.status === 'IDLE') return;
    if (Date.now() > deadline) throw new Error(`P8: the conversation stayed ${conversation.status}`);
    await sleep(10);
  }
}

function sampleOf(rig: Rig, runId: string, answer: string, produced: readonly Produced[]): TurnSample {
  const producedAt = (offset: number): number =>
    produced.find((p) => offset >= p.from && offset < p.to)?.at ?? NaN;
  const firstAt = producedAt(0);
  const problems: string[] = [];
  const firstDeltaMs: number[] = [];
  const deltaMs: number[] = [];
  let joinedLate = 0;
  let lastArrival = -Infinity;
  rig.arrivals.forEach((all, i) => {
    const mine = all.filter((a) => a.delta.messageId === runId);
    const problem = textProblem(mine, answer);
    if (problem) problems.push(`subscriber ${i}: ${problem}`);
    const first = mine[0];
    if (first) {
      firstDeltaMs.push(first.at - firstAt);
      // why: the first delta goes out at once (the throttle's leading edge), so a live one carries
      // exactly the provider's first piece; anything longer is the catch-up snapshot.
      const firstPiece = produced[0] ? produced[0].to - produced[0].from : 0;
      if (first.delta.text.length !== firstPiece) joinedLate++;
    }
    for (const a of mine) {
      if (a.delta.text.length > 0) deltaMs.push(a.at - producedAt(a.delta.offset));
      lastArrival = Math.max(lastArrival, a.at);
    }
  });
  const deliveries = rig.arrivals.reduce(
    (n, all) => n + all.filter((a) => a.delta.messageId === runId).length,
    0,
  );
  return {
    k: rig.arrivals.length,
    runId,
    answer,
    firstDeltaMs,
    deltaMs,
    deliveries,
    rate: deliveries / ((lastArrival - firstAt) / 1000),
    frames: (rig.arrivals[0] ?? []).filter((a) => a.delta.messageId === runId).map((a) => a.raw),
    problems,
    joinedLate,
  };
}

/** Why a subscriber's deltas do not spell the answer exactly once (null when they do). */
export function textProblem(arrivals: readonly Arrival[], answer: string): string | null {
  if (arrivals.length === 0) return 'no delta';
  let text = '';
  for (const { delta } of arrivals) {
    if (delta.offset !== text.length) return `offset ${delta.offset} after ${text.length} characters`;
    text += delta.text;
  }
  const finals = arrivals.filter((a) => a.delta.final).length;
  if (finals !== 1 || !arrivals[arrivals.length - 1]!.delta.final) return `${finals} final deltas`;
  return text === answer ? null : `text of ${text.length} characters, the answer has ${answer.length}`;
}
