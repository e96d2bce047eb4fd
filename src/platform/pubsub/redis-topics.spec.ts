import { EventEmitter } from 'node:events';
import { CONNECT_WAIT_MS, EventBusDownError, RedisTopics, type RedisLike } from './redis-topics';

/** An ioredis stand-in: commands succeed while `status` is 'ready', else reject later (as ioredis' queue does). */
class FakeRedis extends EventEmitter implements RedisLike {
  status = 'ready';
  readonly commands: string[] = [];
  failNext = false;

  private command(line: string, callback?: (err?: Error | null) => void): Promise<unknown> {
    this.commands.push(line);
    let result: Promise<unknown>;
    if (this.status === 'ready' && !this.failNext) result = Promise.resolve(1);
    else {
      this.failNext = false;
      result = new Promise((_, reject) => setTimeout(() => reject(new Error('Connection is closed.')), 5));
    }
    if (callback)
      result.then(
        () => callback(null),
        (e: Error) => callback(e),
      );
    return result;
  }
  publish(channel: string, message: string): Promise<unknown> {
    return this.command(`PUBLISH ${channel} ${message}`);
  }
  subscribe(channel: string, callback?: (err?: Error | null) => void): Promise<unknown> {
    return this.command(`SUBSCRIBE ${channel}`, callback);
  }
  unsubscribe(channel: string): Promise<unknown> {
    return this.command(`UNSUBSCRIBE ${channel}`);
  }
  psubscribe(pattern: string, callback?: (err?: Error | null) => void): Promise<unknown> {
    return this.command(`PSUBSCRIBE ${pattern}`, callback);
  }
  punsubscribe(pattern: string): Promise<unknown> {
    // why: the library sends a PUNSUBSCRIBE with every UNSUBSCRIBE; not recorded here.
    return Promise.resolve(pattern.length);
  }
  quit(): Promise<unknown> {
    return Promise.resolve('OK');
  }
  down(): void {
    this.status = 'reconnecting';
    this.emit('close');
  }
  up(): void {
    this.status = 'ready';
    this.emit('ready');
  }
}

describe('RedisTopics', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(() => process.off('unhandledRejection', onUnhandled));
  beforeEach(() => {
    unhandled.length = 0;
    jest.useRealTimers();
  });

  function setup() {
    const publisher = new FakeRedis();
    const subscriber = new FakeRedis();
    const warnings: string[] = [];
    const topics = new RedisTopics(publisher, subscriber, (m) => warnings.push(m));
    return { publisher, subscriber, topics, warnings };
  }

  it('subscribes a topic once for several handlers, delivers JSON to each, unsubscribes after the last', async () => {
    const { subscriber, topics } = setup();
    const got: unknown[] = [];
    const endA = await topics.subscribe('t', (p) => got.push(['a', p]));
    const endB = await topics.subscribe('t', (p) => got.push(['b', p]));
    subscriber.emit('message', 't', JSON.stringify({ n: 1 }));
    subscriber.emit('message', 'other', JSON.stringify({ n: 2 }));
    expect(got).toEqual([
      ['a', { n: 1 }],
      ['b', { n: 1 }],
    ]);
    endA();
    expect(subscriber.commands).toEqual(['SUBSCRIBE t']);
    endB();
    expect(subscriber.commands).toEqual(['SUBSCRIBE t', 'UNSUBSCRIBE t']);
  });

  it('fails a publish at once while the publisher is down, instead of queueing it', async () => {
    const { publisher, topics } = setup();
    publisher.status = 'reconnecting';
    await expect(topics.publish('t', {})).rejects.toBeInstanceOf(EventBusDownError);
    expect(publisher.commands).toEqual([]);
  });

  it('refuses a subscription after CONNECT_WAIT_MS while the subscriber is down, sending nothing', async () => {
    const { subscriber, topics } = setup();
    subscriber.down();
    const started = Date.now();
    await expect(topics.subscribe('t', () => undefined)).rejects.toBeInstanceOf(EventBusDownError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECT_WAIT_MS - 50);
    expect(subscriber.commands).toEqual([]);
    expect(subscriber.listenerCount('ready')).toBe(1);
  });

  it('waits for a connection that comes up within CONNECT_WAIT_MS', async () => {
    const { subscriber, topics } = setup();
    subscriber.down();
    setTimeout(() => subscriber.up(), 50);
    await topics.subscribe('t', () => undefined);
    expect(subscriber.commands).toEqual(['SUBSCRIBE t']);
  });

  it('tells the subscriptions that asked when the connection is cut, once, and not those that ended', async () => {
    const { subscriber, topics } = setup();
    const lost: string[] = [];
    await topics.subscribe(
      'a',
      () => undefined,
      () => lost.push('a'),
    );
    const endB = await topics.subscribe(
      'b',
      () => undefined,
      () => lost.push('b'),
    );
    await topics.subscribe('c', () => undefined);
    endB();
    subscriber.down();
    subscriber.down();
    expect(lost).toEqual(['a']);
  });

  it('leaves no rejection unhandled when a SUBSCRIBE or UNSUBSCRIBE fails', async () => {
    const { subscriber, topics, warnings } = setup();
    subscriber.failNext = true;
    await expect(topics.subscribe('t', () => undefined)).rejects.toBeInstanceOf(EventBusDownError);
    const end = await topics.subscribe('u', () => undefined);
    subscriber.failNext = true;
    end();
    await new Promise((r) => setTimeout(r, 30));
    expect(warnings.join()).toMatch(/unsubscribe u failed/);
    expect(unhandled).toEqual([]);
    // the topic can be subscribed again afterwards
    const got: unknown[] = [];
    await topics.subscribe('u', (p) => got.push(p));
    subscriber.emit('message', 'u', JSON.stringify({ again: true }));
    expect(got).toEqual([{ again: true }]);
  });
});
