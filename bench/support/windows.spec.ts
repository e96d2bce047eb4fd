import { DRY_RETRIES, fullWindow, queueWindow } from './windows';

describe('bench fullWindow', () => {
  it('keeps the first window that did not run dry, each retry sized for twice the rate it reached', async () => {
    const sizes: number[] = [];
    const dry: number[] = [];
    // A worker that does 1,000/s: any queue sized for less runs dry.
    const sample = await fullWindow(
      300,
      (sizedFor) => {
        sizes.push(sizedFor);
        return Promise.resolve({ perSecond: Math.min(sizedFor, 1000), left: sizedFor > 1000 ? 1 : 0 });
      },
      (s) => s.left === 0,
      (s) => dry.push(s.perSecond),
    );
    expect(sizes).toEqual([300, 600, 1200]);
    expect(dry).toEqual([300, 600]);
    expect(sample).toEqual({ perSecond: 1000, left: 1 });
  });

  it('keeps the last window as it is once the retries are used up', async () => {
    let attempts = 0;
    const sample = await fullWindow(
      10,
      () => Promise.resolve({ perSecond: ++attempts, dry: true }),
      (s) => s.dry,
      () => undefined,
    );
    expect(attempts).toBe(DRY_RETRIES + 1);
    expect(sample.perSecond).toBe(DRY_RETRIES + 1);
  });

  it('fills a queue for headroom times the window at the rate sized for, plus the extra, before each try', async () => {
    const fills: number[] = [];
    const queue = {
      refill: (ready: number) => {
        fills.push(ready);
        return Promise.resolve();
      },
      // A worker that does 1,500/s over a 2 s window: it empties any queue under 3,000 jobs.
      run: (ms: number) => {
        const ready = fills[fills.length - 1]!;
        const done = Math.min(ready, (1500 * ms) / 1000);
        return Promise.resolve({ perSecond: done / (ms / 1000), left: ready - done });
      },
    };
    const dry: number[] = [];
    const sample = await queueWindow(
      queue,
      2000,
      500,
      { headroom: 2, extra: 100, ranDry: (s) => s.left === 0 },
      (at) => dry.push(at),
    );
    expect(fills).toEqual([2100, 8500]);
    expect(dry).toEqual([1050]);
    expect(sample).toEqual({ perSecond: 1500, left: 5500 });
  });
});
