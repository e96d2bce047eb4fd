import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { PubSub, PubSubEngine } from 'graphql-subscriptions';
import { RedisPubSub } from 'graphql-redis-subscriptions';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

export type Unsubscribe = () => Promise<void>;

/**
 * Publish / subscribe between the parts of the server: in-memory in one process, through
 * Redis (graphql-redis-subscriptions) across instances where REDIS_URL is set.
 * Publishing never throws: a broken bus must not fail the transaction that produced the event.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly logger = new Logger(EventBus.name);
  private readonly engine: PubSubEngine;
  private readonly redis: Redis[] = [];
  readonly distributed: boolean;
  private closed = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.redisUrl) {
      const options = { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false };
      const publisher = new Redis(config.redisUrl, options);
      const subscriber = new Redis(config.redisUrl, options);
      for (const client of [publisher, subscriber]) {
        client.on('error', (e: Error) => this.logger.warn(`redis: ${e.message}`));
        this.redis.push(client);
      }
      this.engine = new RedisPubSub({ publisher, subscriber });
      this.distributed = true;
    } else {
      this.engine = new PubSub();
      this.distributed = false;
    }
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    if (this.closed) return;
    try {
      await this.engine.publish(topic, payload);
    } catch (e) {
      this.logger.warn(`publish to ${topic} failed: ${(e as Error).message}`);
    }
  }

  /** Subscribes a handler; resolves once the subscription is active. */
  async subscribe<T>(topic: string, handler: (payload: T) => void): Promise<Unsubscribe> {
    const id = await this.engine.subscribe(topic, handler, {});
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      // why: after the Redis connections closed, ioredis rejects the unsubscribe inside
      // graphql-redis-subscriptions, unhandled; there is nothing left to unsubscribe from.
      if (this.closed) return;
      try {
        await Promise.resolve(this.engine.unsubscribe(id));
      } catch (e) {
        this.logger.warn(`unsubscribe from ${topic} failed: ${(e as Error).message}`);
      }
    };
  }

  /**
   * Closes the Redis connections last: at application shutdown, after the modules stopped
   * (workers unsubscribed, runs drained); from then on publish and unsubscribe do nothing.
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.engine instanceof RedisPubSub) await this.engine.close().catch(() => undefined);
    for (const client of this.redis) client.disconnect();
  }
}
