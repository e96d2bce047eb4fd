import type { EventEmitter } from 'node:events';
import { RedisPubSub } from 'graphql-redis-subscriptions';

/** The part of an ioredis client the topics use (a real `Redis`, or a stand-in in unit tests). */
export interface RedisLike extends EventEmitter {
  readonly status: string;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string, callback?: (err?: Error | null) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  psubscribe(pattern: string, callback?: (err?: Error | null) => void): Promise<unknown>;
  punsubscribe(pattern: string): Promise<unknown>;
  quit(): Promise<unknown>;
}

/** How long a subscription waits for a connection that is being (re)established. */
export const CONNECT_WAIT_MS = 2000;

/** Raised when Redis cannot be reached: no subscription can be made, or a live one was cut. */
export class EventBusDownError extends Error {
  constructor(reason: string) {
    super(`the event bus (Redis) cannot be reached: ${reason}`);
    this.name = 'EventBusDownError';
  }
}

/**
 * Topics over Redis PubSub, carried by graphql-redis-subscriptions (`RedisPubSub`: one SUBSCRIBE
 * per topic, reference-counted handlers, JSON messages), with what an outage needs around it:
 * - the UNSUBSCRIBEs the library sends without awaiting them get a handler here, so a failing
 *   one is logged instead of crashing the process as an unhandled rejection;
 * - nothing waits in ioredis' offline queue while Redis is gone: a publish fails at once, a
 *   subscription after CONNECT_WAIT_MS;
 * - the subscriptions that asked for it hear when the connection is cut, since the events
 *   published meanwhile are lost to them.
 */
export class RedisTopics {
  private readonly engine: RedisPubSub;
  private readonly lostListeners = new Set<(error: EventBusDownError) => void>();
  private connected: boolean;

  constructor(
    private readonly publisher: RedisLike,
    private readonly subscriber: RedisLike,
    private readonly warn: (message: string) => void,
  ) {
    for (const method of ['unsubscribe', 'punsubscribe'] as const) handleRejections(subscriber, method, warn);
    this.engine = new RedisPubSub({ publisher: publisher as never, subscriber: subscriber as never });
    this.connected = subscriber.status === 'ready';
    subscriber.on('ready', () => void (this.connected = true));
    subscriber.on('close', () => this.onClose());
  }

  /** Publishes (JSON), or throws at once when the publisher is not connected. */
  async publish(topic: string, payload: unknown): Promise<void> {
    if (this.publisher.status !== 'ready') throw new EventBusDownError(`publisher ${this.publisher.status}`);
    await this.engine.publish(topic, payload);
  }

  /**
   * Subscribes a handler; resolves once Redis confirmed the subscription. `onLost` is told
   * (once) when the connection is cut while the subscription lives. Throws EventBusDownError
   * when Redis is not reachable within CONNECT_WAIT_MS.
   */
  async subscribe(
    topic: string,
    handler: (payload: unknown) => void,
    onLost?: (error: EventBusDownError) => void,
  ): Promise<() => void> {
    await this.connection();
    const pending = this.engine.subscribe(topic, handler);
    // why: for a failed SUBSCRIBE the library also rejects an internal deferred that nobody
    // awaits (an unhandled rejection); the rejection reaches us through `pending` anyway.
    internalPending(this.engine, topic)?.catch(() => undefined);
    let id: number;
    try {
      id = await withTimeout(pending, CONNECT_WAIT_MS);
    } catch (e) {
      // why: a SUBSCRIBE confirmed after we gave up must not leave a handler behind.
      pending.then((late) => this.end(late, topic)).catch(() => undefined);
      throw new EventBusDownError((e as Error).message);
    }
    const lost = onLost ? (error: EventBusDownError) => onLost(error) : null;
    if (lost) this.lostListeners.add(lost);
    return () => {
      if (lost) this.lostListeners.delete(lost);
      this.end(id, topic);
    };
  }

  /** Closes both connections (the library's QUIT). */
  async close(): Promise<void> {
    await this.engine.close();
  }

  private end(id: number, topic: string): void {
    try {
      this.engine.unsubscribe(id);
    } catch (e) {
      this.warn(`unsubscribe from ${topic} failed: ${(e as Error).message}`);
    }
  }

  private async connection(): Promise<void> {
    if (this.subscriber.status === 'ready') return;
    const ready = await new Promise<boolean>((resolve) => {
      const onReady = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.subscriber.off('ready', onReady);
        resolve(false);
      }, CONNECT_WAIT_MS);
      this.subscriber.once('ready', onReady);
    });
    if (!ready) throw new EventBusDownError(`subscriber ${this.subscriber.status}`);
  }

  private onClose(): void {
    if (!this.connected) return;
    this.connected = false;
    const listeners = [...this.lostListeners];
    this.lostListeners.clear();
    const error = new EventBusDownError('the connection was lost');
    for (const listener of listeners) listener(error);
  }
}

/** Gives every promise a client method returns a rejection handler (the promise is unchanged). */
function handleRejections(
  client: RedisLike,
  method: 'unsubscribe' | 'punsubscribe',
  warn: (message: string) => void,
): void {
  const original = client[method].bind(client);
  (client as unknown as Record<string, unknown>)[method] = (channel: string) => {
    const result = original(channel);
    result.catch((e: unknown) => warn(`${method} ${channel} failed: ${(e as Error).message}`));
    return result;
  };
}

/** The library's in-flight SUBSCRIBE of a topic (a private map of RedisPubSub 2.7). */
function internalPending(engine: RedisPubSub, topic: string): Promise<unknown> | undefined {
  const map = (engine as unknown as { subsPendingRefsMap?: Map<string, { pending?: Promise<unknown> }> })
    .subsPendingRefsMap;
  return map?.get(topic)?.pending;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
