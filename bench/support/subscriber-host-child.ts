// The subscriber host's child process (see subscriber-host.ts): holds the client sockets of a
// fan-out measurement (P3), or P1's decider and subscriber, so that their reading and parsing
// do not share the server's event loop.
// Commands arrive over the IPC channel; every arrival time it reports is absolute
// (performance.timeOrigin + performance.now()), the parent maps it onto its own clock.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { decideWatched, watch, type Watch } from './decider-client';
import { newLog, recordFrame, type Audience, type SubscriberLog } from './fanout';
import { GraphQLClient } from './graphql';
import { connect, echoRoundTrips } from './raw-ws';
import { sleep } from './stats';
import {
  closeAll,
  GqlWsConnection,
  inBatches,
  openConnections,
  textOf,
  type WsMessage,
  type WsSubscription,
} from './ws-subscriber';
import type { HostCommand, HostReply, Samples } from './subscriber-host';

const now = (): number => performance.timeOrigin + performance.now();

/** Subscriptions started at once; the next batch once each of these had its first frame. */
const SUBSCRIBE_BATCH = 250;

let connections: GqlWsConnection[] = [];
let current: { logs: SubscriberLog[]; subs: WsSubscription[]; samples: Samples } | null = null;

/** The raw baseline's client sockets and what they received, per event. */
const raw = {
  sockets: [] as WebSocket[],
  received: [] as number[],
  arrivals: [] as number[][],
};

/**
 * Subscribes the first `count` connections (even: admin runEvents from `fromStep - 1`, odd:
 * bob runProgress) in batches and waits for each one's first frame (snapshot or replayed
 * step): the fan-out is measured, not a subscribe storm.
 */
async function subscribe(c: Extract<HostCommand, { op: 'subscribe' }>): Promise<HostReply> {
  const started = performance.now();
  const logs: SubscriberLog[] = [];
  const subs: WsSubscription[] = [];
  const samples: Samples = { trace: [], progress: [] };
  const count = Math.min(c.count, connections.length);
  for (let from = 0; from < count; from += SUBSCRIBE_BATCH) {
    const batch = connections.slice(from, Math.min(count, from + SUBSCRIBE_BATCH)).map((conn, j) => {
      const i = from + j;
      const audience: Audience = i % 2 === 0 ? 'trace' : 'progress';
      const log = newLog(audience);
      const sample = i < 2 ? samples[audience] : null;
      const onFrame = (text: string, message: WsMessage, at: number): void =>
        recordFrame(log, c.sentinel, sample, text, message, performance.timeOrigin + at);
      const sub =
        audience === 'trace'
          ? conn.subscribe(c.traceQuery, { runId: c.runId, afterSequence: c.fromStep - 1 }, onFrame)
          : conn.subscribe(c.progressQuery, { runId: c.runId }, onFrame);
      sub.done.then(() => log.errors.push(...sub.errors)).catch(() => undefined);
      logs.push(log);
      subs.push(sub);
      return { log, sub };
    });
    const deadline = Date.now() + 60_000;
    while (batch.some((b) => b.log.first === null && !b.sub.ended()) && Date.now() < deadline) await sleep(5);
  }
  current = { logs, subs, samples };
  const startedCount = logs.filter((l) => l.first !== null).length;
  return {
    op: 'subscribed',
    started: startedCount,
    ms: performance.now() - started,
    firstErrors: subs[0]?.errors ?? [],
  };
}

/** Waits until every stream ended, or no frame arrived for `stallMs`; hands the logs over. */
async function collect(stallMs: number): Promise<HostReply> {
  if (!current) throw new Error('collect before subscribe');
  const { logs, subs, samples } = current;
  const activity = (): number => logs.reduce((n, l) => n + l.live.length, 0);
  let seen = activity();
  let since = Date.now();
  while (subs.some((s) => !s.ended())) {
    await sleep(50);
    const a = activity();
    if (a !== seen) {
      seen = a;
      since = Date.now();
    } else if (Date.now() - since > stallMs) break;
  }
  current = null;
  return { op: 'collected', logs, samples };
}

async function rawOpen(url: string, count: number): Promise<HostReply> {
  raw.sockets = await inBatches(
    count,
    64,
    () =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(url, { perMessageDeflate: false });
        socket.once('open', () => resolve(socket));
        socket.once('error', reject);
      }),
  );
  raw.sockets.forEach((socket, i) =>
    socket.on('message', (data: WebSocket.RawData) => {
      const at = now();
      JSON.parse(textOf(data));
      const n = raw.received[i]!;
      raw.received[i] = n + 1;
      const arrivals = raw.arrivals[n];
      if (!arrivals) return;
      arrivals.push(at);
      // why: the stepwise broadcast sends the next event once this one reached every socket.
      if (arrivals.length === raw.sockets.length) reply({ op: 'rawEvent', event: n });
    }),
  );
  return { op: 'ok' };
}

/** Expects `events` events on every raw socket from now on; `rawArrivals` reads them back. */
function rawExpect(events: number): HostReply {
  raw.received = raw.sockets.map(() => 0);
  raw.arrivals = Array.from({ length: events }, () => []);
  return { op: 'ok' };
}

async function rawArrivals(timeoutMs: number): Promise<HostReply> {
  const total = raw.arrivals.length * raw.sockets.length;
  const deadline = Date.now() + timeoutMs;
  while (raw.arrivals.reduce((n, a) => n + a.length, 0) < total && Date.now() < deadline) await sleep(1);
  return { op: 'rawArrivals', arrivals: raw.arrivals };
}

function rawClose(): HostReply {
  for (const s of raw.sockets) s.terminate();
  raw.sockets = [];
  return { op: 'ok' };
}

/** P1's client side: the approver over HTTP, the owner's subscription, the echo baseline's socket. */
let decider: {
  approver: GraphQLClient;
  subscriber: GqlWsConnection;
  echo: WebSocket;
  watching: Watch | null;
} | null = null;

async function deciderOpen(c: Extract<HostCommand, { op: 'deciderOpen' }>): Promise<HostReply> {
  const [subscriber, echo] = await Promise.all([
    GqlWsConnection.open(c.wsUrl, c.subscriberToken),
    connect(c.echoUrl),
  ]);
  decider = { approver: new GraphQLClient(c.httpUrl, c.approverToken), subscriber, echo, watching: null };
  return { op: 'ok' };
}

function deciding(): NonNullable<typeof decider> {
  if (!decider) throw new Error('no decider: deciderOpen first');
  return decider;
}

async function decide(): Promise<HostReply> {
  const d = deciding();
  if (!d.watching) throw new Error('decide before watch');
  const decision = await decideWatched(d.watching, d.approver, now);
  d.watching = null;
  return { op: 'decided', decision };
}

async function deciderClose(): Promise<HostReply> {
  if (decider) {
    decider.echo.terminate();
    await decider.subscriber.close();
    decider = null;
  }
  return { op: 'ok' };
}

async function handle(c: HostCommand): Promise<HostReply> {
  switch (c.op) {
    case 'clock':
      return { op: 'clock', at: now() };
    case 'open': {
      const t = performance.now();
      connections = await openConnections(c.wsUrl, c.tokens.length, (i) => c.tokens[i]!);
      return { op: 'opened', ms: performance.now() - t };
    }
    case 'subscribe':
      return subscribe(c);
    case 'collect':
      return collect(c.stallMs);
    case 'closeAll':
      await closeAll(connections);
      connections = [];
      return { op: 'ok' };
    case 'rawOpen':
      return rawOpen(c.url, c.count);
    case 'rawExpect':
      return rawExpect(c.events);
    case 'rawArrivals':
      return rawArrivals(c.timeoutMs);
    case 'rawClose':
      return rawClose();
    case 'deciderOpen':
      return deciderOpen(c);
    case 'watch':
      deciding().watching = await watch(deciding().subscriber, c.run, (at) => performance.timeOrigin + at);
      return { op: 'ok' };
    case 'decide':
      return decide();
    case 'echo':
      return { op: 'echoed', ms: await echoRoundTrips(deciding().echo, c.count, c.bytes) };
    case 'deciderClose':
      return deciderClose();
  }
}

function reply(message: HostReply & { seq?: number }): void {
  process.send!(message);
}

process.on('message', (message: HostCommand & { seq: number }) => {
  handle(message).then(
    (r) => reply({ ...r, seq: message.seq }),
    (e: unknown) =>
      reply({
        op: 'failed',
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
        seq: message.seq,
      }),
  );
});
process.on('disconnect', () => process.exit(0));
