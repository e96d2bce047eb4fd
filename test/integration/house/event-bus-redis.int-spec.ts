import Redis from 'ioredis';
import { EventBus } from '../../../src/platform/pubsub/event-bus';
import { redisServerBinary, startPrivateRedis, type PrivateRedis } from '../../support/private-services';

const binary = redisServerBinary();
/** Needs a redis-server of the test's own: its read counter must see this test's commands only. */
const describeWithRedis = binary ? describe : describe.skip;

/**
 * The bus over Redis sends the publishes of one turn of the event loop in one write
 * (src/platform/pubsub/event-bus.ts): a step's trace and progress, the runs of a worker's pickup.
 */
describeWithRedis('the event bus over Redis', () => {
  let redis: PrivateRedis;
  let bus: EventBus;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startPrivateRedis(binary!);
    bus = new EventBus({ redisUrl: redis.url });
    admin = new Redis(redis.url);
    // why: the bus' connections are up before anything is counted.
    await (
      await bus.subscribe('warm-up', () => undefined)
    )();
  });
  afterAll(async () => {
    await bus?.onApplicationShutdown();
    admin?.disconnect();
    await redis?.kill();
  });

  /** How many times the server has read from its clients' sockets (INFO stats). */
  const readsSoFar = async (): Promise<number> =>
    Number(/total_reads_processed:(\d+)/.exec(await admin.info('stats'))?.[1]);

  it('publishes of one turn reach Redis in one read, and each subscriber gets them all in order', async () => {
    const got: number[] = [];
    const ends = await Promise.all(
      ['pipelined.a', 'pipelined.b'].map((topic) =>
        bus.subscribe<{ n: number }>(topic, ({ n }) => got.push(n)),
      ),
    );
    const before = await readsSoFar();
    await Promise.all(
      Array.from({ length: 40 }, (_, n) => bus.publish(n % 2 === 0 ? 'pipelined.a' : 'pipelined.b', { n })),
    );
    // one read for the 40 PUBLISHes (a write each would be 40), one for this INFO
    expect((await readsSoFar()) - before).toBeLessThanOrEqual(3);
    const deadline = Date.now() + 5_000;
    while (got.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual(Array.from({ length: 40 }, (_, n) => n));
    await Promise.all(ends.map((end) => end()));
  });
});
