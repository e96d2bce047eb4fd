// The bench's client side in its own process (P3's subscribers, P1's decider). Clients of a
// real deployment sit on other machines: when thousands of client sockets share the server's
// event loop, reading and parsing their frames costs the server as much time as sending them,
// and both the app's fan-out and the raw broadcast beside it measure the bench's clients as much
// as the server; a lone decider in the app's process reads its receipt and its first frame only
// once the app's continuation lets go of the thread. The host holds the client sockets
// (graphql-ws subscribers, P1's approver, and the raw baselines' sockets) in a child process;
// the parent keeps the app or the raw server, and maps the child's arrival times onto its own
// `performance.now()` clock.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { onCleanup } from './cleanup';
import type { ClientDecision } from './decider-client';
import type { WaitingRun } from './decisions';
import type { SubscriberLog } from './fanout';

/** Raw text of the first live frames of subscriber 0 (trace) and 1 (progress). */
export interface Samples {
  trace: string[];
  progress: string[];
}

export type HostCommand =
  | { op: 'clock' }
  | { op: 'open'; wsUrl: string; tokens: string[] }
  | {
      op: 'subscribe';
      count: number;
      runId: string;
      fromStep: number;
      sentinel: string;
      traceQuery: string;
      progressQuery: string;
    }
  | { op: 'collect'; stallMs: number }
  | { op: 'closeAll' }
  | { op: 'rawOpen'; url: string; count: number }
  | { op: 'rawExpect'; events: number }
  | { op: 'rawArrivals'; timeoutMs: number }
  | { op: 'rawClose' }
  | {
      op: 'deciderOpen';
      httpUrl: string;
      wsUrl: string;
      approverToken: string;
      subscriberToken: string;
      echoUrl: string;
    }
  | { op: 'watch'; run: WaitingRun }
  | { op: 'decide' }
  | { op: 'echo'; count: number; bytes: number }
  | { op: 'deciderClose' };

export type HostReply =
  | { op: 'ok' }
  | { op: 'failed'; error: string }
  | { op: 'clock'; at: number }
  | { op: 'opened'; ms: number }
  | { op: 'subscribed'; started: number; ms: number; firstErrors: unknown[] }
  | { op: 'collected'; logs: SubscriberLog[]; samples: Samples }
  | { op: 'rawEvent'; event: number }
  | { op: 'rawArrivals'; arrivals: number[][] }
  | { op: 'decided'; decision: ClientDecision }
  | { op: 'echoed'; ms: number[] };

type Reply<O extends HostReply['op']> = Extract<HostReply, { op: O }>;

const CHILD = join(__dirname, 'subscriber-host-child.js');

export class SubscriberHost {
  private seq = 0;
  private readonly pending = new Map<number, (r: HostReply) => void>();
  private readonly rawEvents: number[] = [];
  /** Child absolute time minus this process' `performance.timeOrigin + performance.now()`. */
  private offsetMs = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly stop: () => Promise<void>,
  ) {
    child.on('message', (m: HostReply & { seq?: number }) => {
      if (m.op === 'rawEvent') {
        this.rawEvents.push(m.event);
        return;
      }
      const resolve = m.seq === undefined ? undefined : this.pending.get(m.seq);
      if (resolve) {
        this.pending.delete(m.seq!);
        resolve(m);
      }
    });
  }

  static async start(): Promise<SubscriberHost> {
    // why: the host may hold 5,000 sockets and their buffers: a larger heap than the default.
    const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = onCleanup(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect();
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    });
    const host = new SubscriberHost(child, stop);
    await host.calibrate();
    return host;
  }

  /**
   * Both processes read the same system clock, but each `performance.timeOrigin` is taken at
   * its own start: the offset between them is measured by round trips over the IPC channel
   * (the one with the shortest round trip, assuming the child read its clock halfway).
   */
  private async calibrate(): Promise<void> {
    let best = Infinity;
    for (let i = 0; i < 20; i++) {
      const sent = performance.now();
      const { at } = await this.ask('clock', { op: 'clock' });
      const back = performance.now();
      if (back - sent < best) {
        best = back - sent;
        this.offsetMs = at - (performance.timeOrigin + (sent + back) / 2);
      }
    }
  }

  /** A child's absolute time on this process' `performance.now()` clock. */
  local(at: number): number {
    return at - this.offsetMs - performance.timeOrigin;
  }

  private ask<O extends HostReply['op']>(op: O, command: HostCommand): Promise<Reply<O>> {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, (r) => {
        if (r.op === 'failed') reject(new Error(`subscriber host: ${r.error}`));
        else if (r.op !== op) reject(new Error(`subscriber host: expected ${op}, got ${r.op}`));
        else resolve(r as Reply<O>);
      });
      this.child.send({ ...command, seq });
    });
  }

  /** Opens one authenticated graphql-ws connection per token (in order); ms it took. */
  async open(wsUrl: string, tokens: string[]): Promise<number> {
    return (await this.ask('opened', { op: 'open', wsUrl, tokens })).ms;
  }

  /** Subscribes the first `count` connections and waits for every first frame. */
  subscribe(c: Omit<Extract<HostCommand, { op: 'subscribe' }>, 'op'>): Promise<Reply<'subscribed'>> {
    return this.ask('subscribed', { op: 'subscribe', ...c });
  }

  /** Every subscriber's log once the streams ended (or stalled), arrival times on this clock. */
  async collect(stallMs: number): Promise<{ logs: SubscriberLog[]; samples: Samples }> {
    const { logs, samples } = await this.ask('collected', { op: 'collect', stallMs });
    for (const log of logs) for (const d of log.live) (d as { at: number }).at = this.local(d.at);
    return { logs, samples };
  }

  async closeAll(): Promise<void> {
    await this.ask('ok', { op: 'closeAll' });
  }

  /** Connects `count` raw client sockets (each parses every frame as JSON) to `url`. */
  async rawOpen(url: string, count: number): Promise<void> {
    await this.ask('ok', { op: 'rawOpen', url, count });
  }

  async rawExpect(events: number): Promise<void> {
    this.rawEvents.length = 0;
    await this.ask('ok', { op: 'rawExpect', events });
  }

  /** Whether event `e` reached every raw socket (the child says so once it has). */
  rawEventDone(e: number): boolean {
    return this.rawEvents.includes(e);
  }

  /** Per event, the arrival of each delivery, on this clock. */
  async rawArrivals(timeoutMs: number): Promise<number[][]> {
    const { arrivals } = await this.ask('rawArrivals', { op: 'rawArrivals', timeoutMs });
    return arrivals.map((a) => a.map((at) => this.local(at)));
  }

  async rawClose(): Promise<void> {
    await this.ask('ok', { op: 'rawClose' });
  }

  /** P1: the approver's HTTP client, the owner's graphql-ws connection and an echo socket. */
  async deciderOpen(c: Omit<Extract<HostCommand, { op: 'deciderOpen' }>, 'op'>): Promise<void> {
    await this.ask('ok', { op: 'deciderOpen', ...c });
  }

  /** Subscribes the owner to the run's progress; resolves once the snapshot arrived. */
  async watch(run: WaitingRun): Promise<void> {
    await this.ask('ok', { op: 'watch', run });
  }

  /** Approves the watched run; resolves when its stream ended, times on this process' clock. */
  async decide(): Promise<ClientDecision> {
    const { decision: d } = await this.ask('decided', { op: 'decide' });
    return {
      ...d,
      sentAt: this.local(d.sentAt),
      receiptAt: this.local(d.receiptAt),
      firstAt: this.local(d.firstAt),
    };
  }

  /** Sequential round trips from the child to the echo server, ms each (the child's own clock). */
  async echo(count: number, bytes = 200): Promise<number[]> {
    return (await this.ask('echoed', { op: 'echo', count, bytes })).ms;
  }

  async deciderClose(): Promise<void> {
    await this.ask('ok', { op: 'deciderClose' });
  }
}
