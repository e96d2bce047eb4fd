import { Refusal } from '../../../common/refusal';
import { clampMaxIterations } from './max-iterations.policy';

describe('clampMaxIterations', () => {
  it('keeps a value within the ceiling', () => {
    expect(clampMaxIterations(1, 20)).toBe(1);
    expect(clampMaxIterations(5, 20)).toBe(5);
    expect(clampMaxIterations(20, 20)).toBe(20);
  });

  it('clamps a value above the ceiling to the ceiling', () => {
    expect(clampMaxIterations(50, 20)).toBe(20);
    expect(clampMaxIterations(50, 8)).toBe(8);
  });

  it('uses the default ceiling of 20 when none (or a nonsensical one) is given', () => {
    expect(clampMaxIterations(1000)).toBe(20);
    expect(clampMaxIterations(1000, 0)).toBe(20);
  });

  it.each([0, -3, 2.5, Number.NaN])('refuses %p with BAD_USER_INPUT', (n) => {
    expect(() => clampMaxIterations(n, 20)).toThrow(Refusal);
    try {
      clampMaxIterations(n, 20);
    } catch (e) {
      expect((e as Refusal).code).toBe('BAD_USER_INPUT');
      expect((e as Refusal).details).toEqual({ field: 'maxIterations' });
    }
  });
});
