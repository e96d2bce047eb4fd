import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

/** A graphql-transport-ws message as it arrives (only what the bench reads). */
export interface WsMessage {
  readonly type: string;
  readonly id?: string;
  readonly payload?: unknown;
}

/**
 * Called for every `next` frame of a subscription, with the raw text as it came off the
 * socket, the parsed message and the arrival time (`performance.now()`, the clock the bus tap
 * stamps publishes with: the app runs in this process).
 */
export type FrameHandler = (raw: string, message: WsMessage, at: number) => void;

/** One subscription on a connection: its errors, and a promise that settles when it ends. */
export interface WsSubscription {
  readonly id: string;
  /** `error` payloads (GraphQL errors) and socket failures; empty for a clean stream. */
  readonly errors: unknown[];
  /** Resolves on `complete`, `error` or the socket closing. */
  readonly done: Promise<void>;
  readonly ended: () => boolean;
}

interface Pending {
  readonly onFrame: FrameHandler;
  readonly errors: unknown[];
  end(): void;
}

const PROTOCOL = 'graphql-transport-ws';

/** The text of a `ws` message (a Buffer, fragments, or an ArrayBuffer). */
export function textOf(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * A minimal graphql-transport-ws client on a raw `ws` socket: connection_init with the bearer
 * token, then any number of subscriptions multiplexed on the socket. Lighter than the
 * graphql-ws client (no retry machinery, no per-message promise chain), so thousands of them
 * can share the bench process with the app without the clients dominating the CPU; every
 * frame still goes through the real server code (auth, graphql-ws, execution, formatting).
 */
export class GqlWsConnection {
  private readonly subscriptions = new Map<string, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: WebSocket.RawData) => this.onMessage(data));
    socket.on('close', () => this.onClose('socket closed'));
    socket.on('error', (e: Error) => this.onClose(e.message));
  }

  /** Connects and authenticates (`connectionParams.authorization`); rejects on refusal or timeout. */
  static open(wsUrl: string, token: string, timeoutMs = 30_000): Promise<GqlWsConnection> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl, PROTOCOL, { perMessageDeflate: false });
      const timer = setTimeout(
        () => fail(new Error(`graphql-ws: no connection_ack in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const fail = (e: Error): void => {
        clearTimeout(timer);
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.terminate();
        reject(e);
      };
      socket.once('error', fail);
      socket.once('close', (code: number) => fail(new Error(`graphql-ws: closed with ${code} before ack`)));
      socket.once('open', () => {
        socket.send(
          JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }),
        );
      });
      socket.once('message', (data: WebSocket.RawData) => {
        const message = JSON.parse(textOf(data)) as WsMessage;
        if (message.type !== 'connection_ack') return fail(new Error(`graphql-ws: got ${message.type}`));
        clearTimeout(timer);
        socket.removeAllListeners();
        resolve(new GqlWsConnection(socket));
      });
    });
  }

  /** Starts a subscription; `onFrame` gets each `next` frame. */
  subscribe(query: string, variables: Record<string, unknown>, onFrame: FrameHandler): WsSubscription {
    const id = String(this.nextId++);
    const errors: unknown[] = [];
    let ended = false;
    let end!: () => void;
    const done = new Promise<void>((resolve) => {
      end = () => {
        ended = true;
        this.subscriptions.delete(id);
        resolve();
      };
    });
    if (this.closed) {
      errors.push('socket closed');
      end();
    } else {
      this.subscriptions.set(id, { onFrame, errors, end });
      this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
    }
    return { id, errors, done, ended: () => ended };
  }

  private onMessage(data: WebSocket.RawData): void {
    const at = performance.now();
    const raw = textOf(data);
    const message = JSON.parse(raw) as WsMessage;
    if (message.type === 'ping') {
      this.socket.send(JSON.stringify({ type: 'pong' }));
      return;
    }
    const sub = message.id ? this.subscriptions.get(message.id) : undefined;
    if (!sub) return;
    if (message.type === 'next') sub.onFrame(raw, message, at);
    else if (message.type === 'error') {
      sub.errors.push(message.payload);
      sub.end();
    } else if (message.type === 'complete') sub.end();
  }

  private onClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const sub of [...this.subscriptions.values()]) {
      sub.errors.push(reason);
      sub.end();
    }
  }

  /** Closes the socket (normal closure) and waits until it is closed. */
  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.socket.terminate();
        resolve();
      }, 5_000);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.close(1000);
    });
  }
}

/**
 * Runs `task` for 0..count-1 with at most `concurrency` in flight; results in index order.
 * Opening thousands of sockets at once overflows the listen backlog (connection resets).
 */
export async function inBatches<T>(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return out;
}

/** Opens `count` authenticated connections (in index order), `tokenOf(i)` for the i-th; closes them all if one fails. */
export async function openConnections(
  wsUrl: string,
  count: number,
  tokenOf: (i: number) => string,
  concurrency = 32,
): Promise<GqlWsConnection[]> {
  const opened: GqlWsConnection[] = [];
  try {
    return await inBatches(count, concurrency, async (i) => {
      const c = await GqlWsConnection.open(wsUrl, tokenOf(i));
      opened.push(c);
      return c;
    });
  } catch (e) {
    await closeAll(opened);
    throw e;
  }
}

export async function closeAll(connections: readonly GqlWsConnection[]): Promise<void> {
  await inBatches(connections.length, 256, (i) => connections[i]!.close());
}
