import { ThrottlerStorageService } from '@nestjs/throttler';
import { HitLogStorage } from './hit-log-storage';

/** A small deterministic generator, so a failing sequence can be replayed. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('HitLogStorage', () => {
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['blocking for the ttl (the guard default)', 60_000],
    ['without blocking', 0],
  ])('answers what the stock storage answers, request by request (%s)', async (_name, blockDuration) => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const stock = new ThrottlerStorageService();
    const ours = new HitLogStorage(() => now);
    const random = lcg(42);
    try {
      for (let i = 0; i < 4000; i++) {
        // bursts and pauses, three users, a limit of 50 a minute
        now += random() < 0.05 ? Math.floor(random() * 90_000) : Math.floor(random() * 400);
        const key = `operations:user:${Math.floor(random() * 3)}`;
        const expected = await stock.increment(key, 60_000, 50, blockDuration, 'operations');
        const actual = await ours.increment(key, 60_000, 50, blockDuration, 'operations');
        expect({ i, ...actual }).toEqual({ i, ...expected });
      }
    } finally {
      stock.onApplicationShutdown();
    }
  });

  it('refuses the request past the limit and lets the caller back in once the block is over', async () => {
    let now = 0;
    const storage = new HitLogStorage(() => now);
    for (let i = 1; i <= 3; i++)
      expect((await storage.increment('k', 60_000, 3, 60_000, 't')).isBlocked).toBe(false);
    const refused = await storage.increment('k', 60_000, 3, 60_000, 't');
    expect(refused).toMatchObject({ isBlocked: true, timeToBlockExpire: 60 });
    now = 60_001;
    expect((await storage.increment('k', 60_000, 3, 60_000, 't')).isBlocked).toBe(false);
  });

  it('costs the same per request however many hits a key holds, and forgets idle keys', async () => {
    let now = 0;
    const storage = new HitLogStorage(() => now);
    // why: the stock storage spreads every live hit into Math.min, which overflows here.
    for (let i = 0; i < 300_000; i++) {
      now += 0.1;
      await storage.increment('busy', 60_000, 1_000_000, 60_000, 't');
    }
    expect((await storage.increment('busy', 60_000, 1_000_000, 60_000, 't')).totalHits).toBe(300_001);
    now += 3 * 60_000;
    await storage.increment('other', 60_000, 10, 60_000, 't');
    expect(storage.size()).toBe(1);
  });
});
