// The worker heartbeat and the worker status figures against a real database (PGlite, or
// PostgreSQL with DATABASE_URL): rows written, refreshed and deleted; liveness by last_seen.
import { HEARTBEAT_INTERVAL_MS, WorkerStatusService } from '../../../src/modules/worker';
import { HEARTBEAT_PRUNE_SECONDS } from '../../../src/modules/worker/application/worker-heartbeat';
import { useTestDatabase } from '../../support/test-database';
import { heartbeatOn, heartbeatRows, seedHeartbeat, seedRun, TEST_WORKER_CONFIG } from './worker-support';

describe('WorkerHeartbeat', () => {
  const suite = useTestDatabase({ quietLogs: true });

  beforeEach(async () => {
    await suite.ds.query('DELETE FROM worker_heartbeat');
  });

  it('writes its row at start under a random hex id, refreshes it, and deletes it at stop', async () => {
    const heartbeat = heartbeatOn(suite.ds);
    const other = heartbeatOn(suite.ds);
    expect(heartbeat.workerId).toMatch(/^[0-9a-f]{16}$/);
    expect(other.workerId).not.toBe(heartbeat.workerId);

    await heartbeat.start('worker:test:1');
    expect(heartbeat.beating).toBe(true);
    let rows = await heartbeatRows(suite.ds);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ worker_id: heartbeat.workerId, name: 'worker:test:1' });
    expect(rows[0]!.age).toBeLessThan(2);
    const startedAt = rows[0]!.started_at.getTime();

    // An old last_seen is brought back to now by the next beat; started_at stays.
    await suite.ds.query(`UPDATE worker_heartbeat SET last_seen = now() - interval '25 seconds'`);
    await heartbeat.beat();
    rows = await heartbeatRows(suite.ds);
    expect(rows[0]!.age).toBeLessThan(2);
    expect(rows[0]!.started_at.getTime()).toBe(startedAt);

    // A row deleted behind its back comes back at the next beat.
    await suite.ds.query('DELETE FROM worker_heartbeat');
    await heartbeat.beat();
    expect((await heartbeatRows(suite.ds)).map((r) => r.worker_id)).toEqual([heartbeat.workerId]);

    await heartbeat.stop();
    expect(heartbeat.beating).toBe(false);
    expect(await heartbeatRows(suite.ds)).toEqual([]);
    await heartbeat.beat();
    expect(await heartbeatRows(suite.ds)).toEqual([]);
  });

  it('refreshes on its own every 10 s while it runs, idle too', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const heartbeat = heartbeatOn(suite.ds);
    const beats = jest.spyOn(heartbeat, 'beat');
    try {
      await heartbeat.start('worker:test:2');
      expect(beats).toHaveBeenCalledTimes(1);
      jest.advanceTimersByTime(HEARTBEAT_INTERVAL_MS - 1);
      expect(beats).toHaveBeenCalledTimes(1);
      jest.advanceTimersByTime(1);
      expect(beats).toHaveBeenCalledTimes(2);
      jest.advanceTimersByTime(2 * HEARTBEAT_INTERVAL_MS);
      expect(beats).toHaveBeenCalledTimes(4);
    } finally {
      jest.useRealTimers();
      await heartbeat.stop();
    }
    expect(await heartbeatRows(suite.ds)).toEqual([]);
  });

  it('counts as live only the rows seen within WORKER_LIVENESS_SECONDS', async () => {
    const heartbeat = heartbeatOn(suite.ds);
    expect(await heartbeat.liveWorkers()).toBe(0);
    await seedHeartbeat(suite.ds, 0);
    await seedHeartbeat(suite.ds, 20);
    await seedHeartbeat(suite.ds, 31);
    await seedHeartbeat(suite.ds, 3600);
    expect(await heartbeat.liveWorkers()).toBe(2);
    await heartbeat.start('api:test:3');
    expect(await heartbeat.liveWorkers()).toBe(3);
    expect(
      await heartbeatOn(suite.ds, { ...TEST_WORKER_CONFIG, workerLivenessSeconds: 60 }).liveWorkers(),
    ).toBe(4);
    await heartbeat.stop();
    expect(await heartbeat.liveWorkers()).toBe(2);
  });

  it('removes the rows of processes dead for more than a day when it starts, and no others', async () => {
    const dead = await seedHeartbeat(suite.ds, HEARTBEAT_PRUNE_SECONDS + 60);
    const stale = await seedHeartbeat(suite.ds, 120);
    const heartbeat = heartbeatOn(suite.ds);
    await heartbeat.start('worker:test:4');
    const ids = (await heartbeatRows(suite.ds)).map((r) => r.worker_id);
    expect(ids).not.toContain(dead);
    expect(ids.sort()).toEqual([stale, heartbeat.workerId].sort());
    await heartbeat.stop();
  });
});

describe('WorkerStatusService figures', () => {
  const suite = useTestDatabase();
  let service: WorkerStatusService;

  beforeAll(() => {
    service = WorkerStatusService.over(suite.ds, TEST_WORKER_CONFIG);
  });
  beforeEach(async () => {
    await suite.ds.query('DELETE FROM worker_heartbeat');
    await suite.ds.query('DELETE FROM run_step');
    await suite.ds.query('DELETE FROM decision');
    await suite.ds.query('DELETE FROM run');
  });

  it('reports nothing waiting and no worker as unhealthy (no live worker)', async () => {
    expect(await service.read()).toEqual({
      liveWorkers: 0,
      queued: 0,
      decisionsRecorded: 0,
      expiredLeases: 0,
      oldestWaitSeconds: null,
      healthy: false,
      problems: ['no live worker'],
    });
    await seedHeartbeat(suite.ds, 5);
    expect(await service.read()).toMatchObject({ liveWorkers: 1, healthy: true, problems: [] });
  });

  it('counts each kind of row and takes the oldest wait over queued runs and recorded decisions', async () => {
    await seedHeartbeat(suite.ds, 1);
    await seedHeartbeat(suite.ds, 45);
    await seedRun(suite.ds, 'QUEUED', { ageSeconds: 100 });
    await seedRun(suite.ds, 'QUEUED', { ageSeconds: 20 });
    await seedRun(suite.ds, 'DECISION_RECORDED', { ageSeconds: 900, recordedSecondsAgo: 150 });
    await seedRun(suite.ds, 'RUNNING', { ageSeconds: 50, leaseSeconds: 30 });
    const expired = await seedRun(suite.ds, 'RUNNING', { ageSeconds: 50, leaseSeconds: -5 });
    await seedRun(suite.ds, 'WAITING_FOR_APPROVAL', { ageSeconds: 5000 });
    await seedRun(suite.ds, 'COMPLETED', { ageSeconds: 5000 });

    const status = await service.read();
    expect(status).toMatchObject({
      liveWorkers: 1,
      queued: 2,
      decisionsRecorded: 1,
      expiredLeases: 1,
      healthy: false,
      problems: ['1 run(s) with an expired lease'],
    });
    // The recorded decision counts from recorded_at (150 s), not from its creation (900 s).
    expect(status.oldestWaitSeconds).toBeGreaterThanOrEqual(150);
    expect(status.oldestWaitSeconds).toBeLessThan(155);

    await suite.ds.query(
      `UPDATE run SET status = 'QUEUED', lease_token = NULL, lease_expires_at = NULL WHERE id = $1`,
      [expired],
    );
    expect(await service.read()).toMatchObject({ queued: 3, expiredLeases: 0, healthy: true });
  });

  it('is unhealthy once the oldest wait reaches 300 s', async () => {
    await seedHeartbeat(suite.ds, 1);
    await seedRun(suite.ds, 'QUEUED', { ageSeconds: 299 });
    expect(await service.read()).toMatchObject({ healthy: true });
    await seedRun(suite.ds, 'QUEUED', { ageSeconds: 400 });
    const status = await service.read();
    expect(status.healthy).toBe(false);
    expect(status.oldestWaitSeconds).toBeGreaterThanOrEqual(400);
    expect(status.problems).toEqual([expect.stringMatching(/oldest run has waited 4\d\d s/)]);
  });
});
