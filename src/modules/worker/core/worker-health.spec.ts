import { healthProblems, isHealthy, MAX_HEALTHY_WAIT_SECONDS, WorkerFigures } from './worker-health';

const fine: WorkerFigures = {
  liveWorkers: 1,
  queued: 3,
  decisionsRecorded: 2,
  expiredLeases: 0,
  oldestWaitSeconds: 12,
};

describe('isHealthy', () => {
  it('is healthy with a live worker, no expired lease and a short wait (or none)', () => {
    expect(isHealthy(fine)).toBe(true);
    expect(isHealthy({ ...fine, queued: 0, decisionsRecorded: 0, oldestWaitSeconds: null })).toBe(true);
    expect(isHealthy({ ...fine, oldestWaitSeconds: MAX_HEALTHY_WAIT_SECONDS - 1 })).toBe(true);
    expect(healthProblems(fine)).toEqual([]);
  });

  it('is unhealthy without a live worker, even with nothing to do', () => {
    expect(isHealthy({ ...fine, liveWorkers: 0, queued: 0, oldestWaitSeconds: null })).toBe(false);
    expect(healthProblems({ ...fine, liveWorkers: 0 })).toEqual(['no live worker']);
  });

  it('is unhealthy with an expired lease', () => {
    expect(isHealthy({ ...fine, expiredLeases: 1 })).toBe(false);
    expect(healthProblems({ ...fine, expiredLeases: 2 })).toEqual(['2 run(s) with an expired lease']);
  });

  it('is unhealthy once the oldest wait reaches 300 s', () => {
    expect(isHealthy({ ...fine, oldestWaitSeconds: MAX_HEALTHY_WAIT_SECONDS })).toBe(false);
    expect(healthProblems({ ...fine, oldestWaitSeconds: 301 })).toEqual([
      'the oldest run has waited 301 s (limit 300 s)',
    ]);
  });

  it('names every problem at once', () => {
    expect(
      healthProblems({
        liveWorkers: 0,
        queued: 1,
        decisionsRecorded: 0,
        expiredLeases: 1,
        oldestWaitSeconds: 900,
      }),
    ).toHaveLength(3);
  });
});
