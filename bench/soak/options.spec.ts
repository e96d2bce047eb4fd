import { memoryGrowth } from './memory';
import { parseSoakArgs, SoakUsageError } from './options';
import { Random } from './random';

describe('soak options', () => {
  const seed = () => 42;

  it('defaults to one minute, a fresh seed, 2 API and 2 worker processes, the small memory load', () => {
    expect(parseSoakArgs([], seed)).toMatchObject({
      minutes: 1,
      seed: 42,
      workers: 2,
      apis: 2,
      idleRuns: 20,
      subscriptions: 200,
      keepDatabase: false,
    });
  });

  it('takes fractions of minutes, a seed to replay, and both --name value and --name=value', () => {
    const o = parseSoakArgs(
      ['--minutes', '0.5', '--seed=7', '--workers', '3', '--apis=1', '--keep-database'],
      seed,
    );
    expect(o).toMatchObject({ minutes: 0.5, seed: 7, workers: 3, apis: 1, keepDatabase: true });
  });

  it('uses the memory target sizes from 5 minutes on (1,000 idle subscriptions, 100 waiting runs)', () => {
    expect(parseSoakArgs(['--minutes', '10'], seed)).toMatchObject({ idleRuns: 100, subscriptions: 1000 });
  });

  it('refuses what it does not understand', () => {
    for (const argv of [
      ['--minutes', 'x'],
      ['--minutes', '0'],
      ['--workers', '0'],
      ['--seed', '1.5'],
      ['--bogus'],
      ['5'],
    ]) {
      expect(() => parseSoakArgs(argv, seed)).toThrow(SoakUsageError);
    }
  });
});

describe('the soak random source', () => {
  const draws = (r: Random, n: number) => Array.from({ length: n }, () => r.int(0, 1000));

  it('replays the same choices for the same seed, and others for another seed', () => {
    expect(draws(new Random(5), 20)).toEqual(draws(new Random(5), 20));
    expect(draws(new Random(5), 20)).not.toEqual(draws(new Random(6), 20));
  });

  it('gives each lane a stream of its own that does not depend on what other lanes drew', () => {
    const a = new Random(9);
    const lane1 = a.fork(1);
    draws(a.fork(2), 50);
    expect(draws(lane1, 10)).toEqual(draws(new Random(9).fork(1), 10));
    expect(draws(new Random(9).fork(1), 10)).not.toEqual(draws(new Random(9).fork(2), 10));
  });

  it('picks by weight and never an entry of weight 0', () => {
    const r = new Random(1);
    const picks = Array.from({ length: 2000 }, () =>
      r.weighted([
        ['a', 3],
        ['b', 1],
        ['never', 0],
      ] as const),
    );
    const a = picks.filter((p) => p === 'a').length;
    expect(picks).not.toContain('never');
    expect(a / picks.length).toBeGreaterThan(0.7);
    expect(a / picks.length).toBeLessThan(0.8);
  });
});

describe('memory growth of the probe', () => {
  const series = (mb: (minute: number) => number, minutes: number) =>
    Array.from({ length: minutes * 12 + 1 }, (_, i) => ({
      t: i * 5000,
      member: 'api-1',
      pid: 1,
      rssMb: mb(i / 12),
    }));

  it('compares the first and the last minute of the chaos, and judges from 3 minutes on', () => {
    const flat = memoryGrowth(
      series(() => 200, 10),
      'api-1',
      0,
      600_000,
    )!;
    expect(flat).toMatchObject({ growthMb: 0, met: true, windowSeconds: 60 });
    const leaking = memoryGrowth(
      series((m) => 200 + 5 * m, 10),
      'api-1',
      0,
      600_000,
    )!;
    expect(leaking.growthMb).toBeGreaterThan(40);
    expect(leaking.slopeMbPerMinute).toBeCloseTo(5, 5);
    expect(leaking.met).toBe(false);
    expect(
      memoryGrowth(
        series((m) => 200 + 5 * m, 1),
        'api-1',
        0,
        60_000,
      )!.met,
    ).toBeNull();
  });

  it('follows one process: samples of a restarted one (another pid) are left out', () => {
    const samples = [...series(() => 200, 4), { t: 120_000, member: 'api-1', pid: 2, rssMb: 900 }];
    expect(memoryGrowth(samples, 'api-1', 0, 240_000)!.last.max).toBe(200);
  });
});
