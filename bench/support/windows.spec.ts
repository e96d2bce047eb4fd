import { DRY_RETRIES, fullWindow } from './windows';

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
});
