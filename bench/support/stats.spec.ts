import { quantile, ratio, round, roundDeep, summarize } from './stats';

describe('bench stats', () => {
  it('summarises a sample: median (interpolated), min, max, mean, p99', () => {
    const s = summarize([5, 1, 3, 2, 4]);
    expect(s).toEqual({ n: 5, median: 3, min: 1, max: 5, mean: 3, p99: 4.96 });
    expect(summarize([1, 2, 3, 4]).median).toBe(2.5);
  });

  it('ignores non-finite values and answers NaN for an empty sample', () => {
    expect(summarize([NaN, 2, Infinity]).n).toBe(1);
    expect(summarize([]).median).toBeNaN();
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('divides only by a positive baseline', () => {
    expect(ratio(3, 1.5)).toBe(2);
    expect(ratio(3, 0)).toBeNaN();
  });

  it('rounds for output, keeping digits of small values', () => {
    expect(round(1234.5678)).toBe(1234.6);
    expect(round(2.34567)).toBe(2.35);
    expect(round(0.0123456)).toBe(0.01235);
    expect(roundDeep({ a: [1.23456789], b: new Map([['x', 0.5]]), c: NaN })).toEqual({
      a: [1.235],
      b: { x: 0.5 },
      c: null,
    });
  });
});
