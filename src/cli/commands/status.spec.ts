import type { WorkerStatus } from '../../modules/worker';
import { formatStatus } from './status';

const healthy: WorkerStatus = {
  liveWorkers: 2,
  queued: 1,
  decisionsRecorded: 0,
  expiredLeases: 0,
  oldestWaitSeconds: 4,
  healthy: true,
  problems: [],
};

describe('formatStatus', () => {
  it('prints the verdict, each figure and the database', () => {
    expect(formatStatus(healthy, 'postgres://db/x', false)).toEqual([
      'Workers: healthy',
      '  live workers        2',
      '  queued runs         1',
      '  recorded decisions  0',
      '  expired leases      0',
      '  oldest wait         4 s',
      'Database: postgres://db/x',
    ]);
  });

  it('names the problems when unhealthy, and explains the embedded mode without a worker', () => {
    const lines = formatStatus(
      { ...healthy, liveWorkers: 0, oldestWaitSeconds: null, healthy: false, problems: ['no live worker'] },
      'the embedded database in /d',
      true,
    );
    expect(lines[0]).toBe('Workers: UNHEALTHY (no live worker)');
    expect(lines).toContain('  oldest wait         none waiting');
    expect(lines.at(-2)).toMatch(/embedded mode runs its worker inside the server/);
  });
});
