import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import WebSocket, { WebSocketServer } from 'ws';
import { msSince, sleep } from './stats';
import type { SubscriberHost } from './subscriber-host';
import { inBatches, textOf } from './ws-subscriber';

/** A plain `ws` server on 127.0.0.1:<random>; resolves once it listens. */
function listen(onConnection: (socket: WebSocket) => void): Promise<WebSocketServer> {
  return new Promise((resolve, reject) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    server.once('error', reject);
    server.once('listening', () => resolve(server));
    server.on('connection', onConnection);
  });
}

const urlOf = (server: WebSocketServer): string => `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Opens a plain `ws` client socket to `url` (no compression). */
export function connect(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function closeServer(server: WebSocketServer): Promise<void> {
  for (const client of server.clients) client.terminate();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** `count` sequential round trips of a `bytes`-long text message over an echoing socket, ms each. */
export async function echoRoundTrips(client: WebSocket, count: number, bytes = 200): Promise<number[]> {
  const payload = 'x'.repeat(bytes);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const mark = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      client.once('message', () => resolve());
      client.send(payload);
    });
    out.push(msSince(mark));
  }
  return out;
}

/**
 * The WebSocket half of P1's baseline: a tiny `ws` echo server and one client in this process;
 * a round trip is one message there and back (the cheapest push a server can make to a
 * subscriber). `url` takes clients of another process (the client host's), for the baseline
 * beside decisions sent from there.
 */
export class EchoRig {
  private constructor(
    private readonly server: WebSocketServer,
    private readonly client: WebSocket,
  ) {}

  static async open(): Promise<EchoRig> {
    const server = await listen((socket) => socket.on('message', (data) => socket.send(data)));
    return new EchoRig(server, await connect(urlOf(server)));
  }

  get url(): string {
    return urlOf(this.server);
  }

  /** `count` sequential round trips from this process' client; latency of each in ms. */
  roundTrips(count: number, bytes = 200): Promise<number[]> {
    return echoRoundTrips(this.client, count, bytes);
  }

  async close(): Promise<void> {
    this.client.terminate();
    await closeServer(this.server);
  }
}

/** What one broadcast of a sequence of events delivered. */
export interface BroadcastResult {
  /** Per event: time of the first send (performance.now()). */
  readonly sentAt: number[];
  /** Per event: arrival of its last delivery (performance.now()); NaN where one is missing. */
  readonly lastAt: number[];
  /** Every delivery's latency (arrival minus the event's first send), ms. */
  readonly latenciesMs: number[];
  readonly deliveries: number;
  /** Deliveries per second from the first send to the last arrival. */
  readonly rate: number;
}

/**
 * P3's baseline: a raw `ws` server broadcasting pre-serialised frames to `count` client
 * sockets in this process (the same process layout as the app's fan-out: server and clients
 * share one event loop). Socket i receives `frames[i % frames.length]` for each event, so two
 * audiences get their own bytes like the app's two subscriptions; each client parses every
 * frame as JSON, as the graphql-ws subscribers do.
 */
export class BroadcastRig {
  private received: number[] = [];
  private arrivals: number[][] = [];

  private constructor(
    private readonly server: WebSocketServer,
    private readonly serverSockets: WebSocket[],
    private readonly clients: WebSocket[],
  ) {}

  static async open(count: number): Promise<BroadcastRig> {
    const serverSockets: WebSocket[] = [];
    const server = await listen((socket) => serverSockets.push(socket));
    const url = urlOf(server);
    const clients = await inBatches(count, 64, () => connect(url));
    while (serverSockets.length < count) await sleep(5);
    const rig = new BroadcastRig(server, serverSockets, clients);
    clients.forEach((socket, i) =>
      socket.on('message', (data: WebSocket.RawData) => {
        const at = performance.now();
        JSON.parse(textOf(data));
        const n = rig.received[i]!;
        rig.received[i] = n + 1;
        rig.arrivals[n]!.push(at);
      }),
    );
    return rig;
  }

  get size(): number {
    return this.clients.length;
  }

  /**
   * Sends `events` (per event, one frame per audience), each to every socket. `burst`: back to
   * back, as fast as the sockets take them (the capacity: deliveries per second). `stepwise`:
   * the next event only once the previous reached every socket (the latency of one event's
   * fan-out, without queueing behind earlier events).
   */
  async broadcast(
    events: readonly (readonly string[])[],
    mode: 'burst' | 'stepwise',
  ): Promise<BroadcastResult> {
    const total = events.length * this.clients.length;
    this.received = this.clients.map(() => 0);
    this.arrivals = events.map(() => []);
    const deadline = Date.now() + 60_000;
    const reached = (e: number): boolean => this.arrivals[e]!.length >= this.clients.length;
    const sentAt = await sendEvents(this.serverSockets, events, mode, reached, deadline);
    while (this.arrivals.reduce((n, a) => n + a.length, 0) < total && Date.now() < deadline) await sleep(1);
    return broadcastResult(sentAt, this.arrivals, this.clients.length);
  }

  async close(): Promise<void> {
    for (const c of this.clients) c.terminate();
    await closeServer(this.server);
  }
}

/**
 * P3's baseline with its clients in the subscriber host (another process), as the app's
 * subscribers are: a raw `ws` server here broadcasting pre-serialised frames to `count` client
 * sockets there, socket i receiving `frames[i % frames.length]` of each event; each client
 * parses every frame as JSON.
 */
export class HostedBroadcastRig {
  private constructor(
    private readonly host: SubscriberHost,
    private readonly server: WebSocketServer,
    private readonly serverSockets: WebSocket[],
  ) {}

  static async open(host: SubscriberHost, count: number): Promise<HostedBroadcastRig> {
    const serverSockets: WebSocket[] = [];
    const server = await listen((socket) => serverSockets.push(socket));
    await host.rawOpen(urlOf(server), count);
    while (serverSockets.length < count) await sleep(5);
    return new HostedBroadcastRig(host, server, serverSockets);
  }

  /** As `BroadcastRig.broadcast`: `burst` back to back, `stepwise` one event at a time. */
  async broadcast(
    events: readonly (readonly string[])[],
    mode: 'burst' | 'stepwise',
  ): Promise<BroadcastResult> {
    await this.host.rawExpect(events.length);
    const deadline = Date.now() + 60_000;
    const reached = (e: number): boolean => this.host.rawEventDone(e);
    const sentAt = await sendEvents(this.serverSockets, events, mode, reached, deadline);
    const arrivals = await this.host.rawArrivals(Math.max(0, deadline - Date.now()));
    return broadcastResult(sentAt, arrivals, this.serverSockets.length);
  }

  async close(): Promise<void> {
    await this.host.rawClose();
    await closeServer(this.server);
  }
}

/**
 * Sends each event's frames to every socket (socket i gets `frames[i % frames.length]`):
 * `burst` back to back, `stepwise` the next only once `reached(e)` says the previous arrived
 * everywhere. Returns each event's send time.
 */
async function sendEvents(
  sockets: readonly WebSocket[],
  events: readonly (readonly string[])[],
  mode: 'burst' | 'stepwise',
  reached: (event: number) => boolean,
  deadline: number,
): Promise<number[]> {
  const sentAt: number[] = [];
  for (const [e, frames] of events.entries()) {
    sentAt.push(performance.now());
    for (const [i, socket] of sockets.entries()) socket.send(frames[i % frames.length]!);
    // why: yield between events so clients read while later events are sent, as a server
    // publishing event by event lets them.
    await new Promise<void>((r) => setImmediate(r));
    if (mode === 'stepwise') {
      while (!reached(e) && Date.now() < deadline) await sleep(0);
    }
  }
  return sentAt;
}

/** The figures of one broadcast from each event's send time and its arrivals at `k` sockets. */
function broadcastResult(sentAt: number[], arrivals: readonly number[][], k: number): BroadcastResult {
  const lastAt = arrivals.map((a) => (a.length === k ? Math.max(...a) : NaN));
  const latenciesMs = arrivals.flatMap((a, e) => a.map((at) => at - sentAt[e]!));
  const deliveries = latenciesMs.length;
  const end = Math.max(...lastAt.filter((v) => Number.isFinite(v)));
  return { sentAt, lastAt, latenciesMs, deliveries, rate: deliveries / ((end - sentAt[0]!) / 1000) };
}
