import { choosePath, needsWorkerCount } from './path-choice';

describe('choosePath', () => {
  it.each([
    // requested, setting, live workers, expected
    [null, 'auto', 0, 'INLINE'],
    [null, 'auto', 1, 'DURABLE'],
    [null, 'inline', 3, 'INLINE'],
    [null, 'durable', 2, 'DURABLE'],
    [null, 'durable', 0, 'INLINE'],
    ['INLINE', 'durable', 5, 'INLINE'],
    ['DURABLE', 'inline', 1, 'DURABLE'],
    ['DURABLE', 'auto', 0, 'INLINE'],
  ] as const)(
    'requested %s with DECISION_PATH=%s and %d live workers -> %s',
    (requested, setting, live, expected) => {
      expect(choosePath(requested, setting, live)).toBe(expected);
    },
  );
});

describe('needsWorkerCount', () => {
  it('is false only where the path is inline whatever the workers', () => {
    expect(needsWorkerCount(null, 'inline')).toBe(false);
    expect(needsWorkerCount('INLINE', 'auto')).toBe(false);
    expect(needsWorkerCount('DURABLE', 'inline')).toBe(true);
    expect(needsWorkerCount(null, 'auto')).toBe(true);
    expect(needsWorkerCount(null, 'durable')).toBe(true);
  });
});
