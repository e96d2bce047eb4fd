import { reachedCap, utcDayStart } from './budget.policy';

describe('reachedCap', () => {
  const day = (n: number) => () => Promise.resolve(n);

  it('reaches the run cap at or above it, before asking for the day', async () => {
    const asked = jest.fn(() => Promise.resolve(0));
    const caps = { maxTokensPerRun: 100, maxTokensPerUserPerDay: 1000 };
    expect(await reachedCap(caps, 99, day(0))).toBeNull();
    expect(await reachedCap(caps, 100, asked)).toBe('RUN');
    expect(asked).not.toHaveBeenCalled();
  });

  it('reaches the daily cap with the day total; never asks without one', async () => {
    const asked = jest.fn(() => Promise.resolve(5000));
    expect(await reachedCap({ maxTokensPerRun: null, maxTokensPerUserPerDay: null }, 5000, asked)).toBeNull();
    expect(asked).not.toHaveBeenCalled();
    const daily = { maxTokensPerRun: null, maxTokensPerUserPerDay: 300 };
    expect(await reachedCap(daily, 10, day(299))).toBeNull();
    expect(await reachedCap(daily, 10, day(300))).toBe('DAY');
  });
});

describe('utcDayStart', () => {
  it('is midnight UTC of the same UTC day', () => {
    expect(utcDayStart(new Date('2026-03-04T23:59:59.999Z')).toISOString()).toBe('2026-03-04T00:00:00.000Z');
    expect(utcDayStart(new Date('2026-03-05T00:00:00.000Z')).toISOString()).toBe('2026-03-05T00:00:00.000Z');
  });
});
