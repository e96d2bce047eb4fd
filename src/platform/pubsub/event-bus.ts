import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { PubSub } from 'graphql-subscriptions';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Refusal } from '../../common/refusal';
import { EventBusDownError, RedisTopics } from './redis-topics';

/**
 * Ends a subscription. Where the events travel through Redis, `lost` resolves (with the error
 * to end the stream with) when the connection was cut while the subscription lived: the
 * events published meanwhile are gone, so a stream must not go on as if nothing happened.
 */
export type Unsubscribe = (() => Promise<void>) & { readonly lost?: Promise<Refusal> };

/** Retrying ioredis' queue while Redis is gone would hold every publish for seconds. */
const REDIS_OPTIONS = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false } as const;

/** What a refused subscriber is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 5;

/** What a subscriber is told while Redis is down (a coded error, with a message to act on). */
export function liveUpdatesUnavailable(): Refusal {
  return new Refusal(
    'INTERNAL_SERVER_ERROR',
    'Live updates are unavailable right now: the event bus cannot be reached. ' +
      'Runs and decisions go on; query the run, or subscribe again in a moment.',
    { retryAfterSeconds: RETRY_AFTER_SECONDS },
  );
}

/**
 * Publish / subscribe between the parts of the server: in-memory in one process, through
 * Redis across instances where REDIS_URL is set. Publishing never throws and never waits for
 * an absent Redis: a broken bus must not fail or hold up the transaction that produced the
 * event (the event is dropped and the outage logged once). Subscribing while Redis is down is
 * refused with `liveUpdatesUnavailable()`.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly logger = new Logger(EventBus.name);
  private readonly memory: PubSub | null = null;
  private readonly topics: RedisTopics | null = null;
  private readonly redis: Redis[] = [];
  readonly distributed: boolean;
  private closed = false;
  /** Publishes dropped since the outage began (logged once per outage). */
  private dropped = 0;
  /** The connections that closed and are not back yet. */
  private readonly lost = new Set<'publisher' | 'subscriber'>();

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'redisUrl'>) {
    if (config.redisUrl) {
      // why: the PUBLISHes of one turn of the event loop (a step's trace and progress, a pickup's
      // runs) go out in one write, and Redis reads them in one go: on a busy worker a write per
      // event was a system call each on both sides.
      const publisher = new Redis(config.redisUrl, { ...REDIS_OPTIONS, enableAutoPipelining: true });
      const subscriber = new Redis(config.redisUrl, REDIS_OPTIONS);
      for (const [client, role] of [
        [publisher, 'publisher'],
        [subscriber, 'subscriber'],
      ] as const) {
        client.on('error', (e: Error) => this.logger.warn(`redis ${role}: ${e.message}`));
        client.on('close', () => !this.closed && this.lost.add(role));
        client.on('ready', () => this.reconnected(role));
        this.redis.push(client);
      }
      this.topics = new RedisTopics(publisher as never, subscriber as never, (m) => this.logger.warn(m));
      this.distributed = true;
    } else {
      // why: every subscriber of a topic is a listener of one emitter; hundreds on one run are
      // expected here, not a leak (Node warns past 10).
      const emitter = new EventEmitter();
      emitter.setMaxListeners(0);
      this.memory = new PubSub({ eventEmitter: emitter });
      this.distributed = false;
    }
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    if (this.closed) return;
    try {
      if (this.topics) await this.topics.publish(topic, payload);
      else await this.memory!.publish(topic, payload);
    } catch (e) {
      if (e instanceof EventBusDownError) {
        if (this.dropped++ === 0) this.logger.warn(`events are dropped until Redis is back: ${e.message}`);
        return;
      }
      this.logger.warn(`publish to ${topic} failed: ${(e as Error).message}`);
    }
  }

  /**
   * Subscribes a handler; resolves once the subscription is active. Throws
   * `liveUpdatesUnavailable()` while Redis cannot be reached.
   */
  async subscribe<T>(topic: string, handler: (payload: T) => void): Promise<Unsubscribe> {
    if (!this.topics) {
      const id = await this.memory!.subscribe(topic, handler);
      return this.unsubscriber(() => this.memory!.unsubscribe(id), topic);
    }
    let lost: ((error: Refusal) => void) | null = null;
    const cut = new Promise<Refusal>((resolve) => (lost = resolve));
    let end: () => void;
    try {
      end = await this.topics.subscribe(
        topic,
        (payload) => handler(payload as T),
        () => lost?.(liveUpdatesUnavailable()),
      );
    } catch (e) {
      if (e instanceof EventBusDownError) {
        this.logger.warn(`subscription to ${topic} refused: ${e.message}`);
        throw liveUpdatesUnavailable();
      }
      throw e;
    }
    return Object.assign(this.unsubscriber(end, topic), { lost: cut });
  }

  private unsubscriber(end: () => void, topic: string): () => Promise<void> {
    let done = false;
    return () => {
      if (done || this.closed) return Promise.resolve();
      done = true;
      try {
        end();
      } catch (e) {
        this.logger.warn(`unsubscribe from ${topic} failed: ${(e as Error).message}`);
      }
      return Promise.resolve();
    };
  }

  /** Says once per outage that a connection is back (and how many events were dropped meanwhile). */
  private reconnected(role: 'publisher' | 'subscriber'): void {
    if (!this.lost.delete(role)) return;
    if (role === 'subscriber') return this.logger.warn('redis subscriber connected again');
    this.logger.warn(`redis publisher connected again; ${this.dropped} event(s) were dropped meanwhile`);
    this.dropped = 0;
  }

  /**
   * Closes the Redis connections last: at application shutdown, after the modules stopped
   * (workers unsubscribed, runs drained); from then on publish and unsubscribe do nothing.
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // why: QUIT on a connection that is down would wait in ioredis' queue; there is nobody to
    // say goodbye to.
    const open = this.redis.filter((client) => client.status === 'ready');
    await Promise.all(open.map((client) => client.quit().catch(() => undefined)));
    for (const client of this.redis) client.disconnect();
  }
}
