import { nextAttemptAt } from './retry-policy';

const settings = { baseDelayMs: 1000, maxDelayMs: 60_000, windowSeconds: 3600 };
const at = new Date('2026-01-01T00:00:00Z');

describe('nextAttemptAt', () => {
  it('waits a random share of an exponentially growing ceiling', () => {
    const wait = (attempts: number, r: number) =>
      nextAttemptAt(settings, attempts, at, at, () => r)!.getTime() - at.getTime();
    expect(wait(1, 0.999)).toBe(999);
    expect(wait(3, 0.5)).toBe(2000);
    expect(wait(4, 0)).toBe(0);
  });

  it('never waits longer than the cap', () => {
    const next = nextAttemptAt(settings, 40, at, at, () => 0.999999);
    expect(next!.getTime() - at.getTime()).toBeLessThan(60_000);
  });

  it('gives up once the next try would fall outside the window', () => {
    const late = new Date(at.getTime() + 3599_500);
    expect(nextAttemptAt(settings, 2, at, late, () => 0.9)).toBeNull();
    expect(nextAttemptAt(settings, 2, at, late, () => 0)).not.toBeNull();
  });
});
