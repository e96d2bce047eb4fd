import { RunExecutor } from '../../src/modules/runs';
import { QueuedRunPicker } from '../../src/modules/worker';
import { until } from '../support/runs';
import { enqueue, upsertScripted } from '../support/queued-runs';
import { TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

interface RunRow {
  id: string;
  status: string;
  step_count: number;
  lease_token: string | null;
  llm_steps: number;
}

async function rows(t: TestApp, ids: readonly string[]): Promise<RunRow[]> {
  return t.dataSource.query(
    `SELECT r.id, r.status, r.step_count, r.lease_token,
            (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'LLM') AS llm_steps
       FROM run r WHERE r.id = ANY($1::uuid[]) ORDER BY r.created_at, r.id`,
    [ids],
  );
}

/** Samples how many segments execute at once until stopped; the most seen. */
function watchExecuting(executor: RunExecutor): { stop: () => number } {
  let most = 0;
  const timer = setInterval(() => (most = Math.max(most, executor.executingCount())), 2);
  return {
    stop: () => {
      clearInterval(timer);
      return most;
    },
  };
}

/** WORKER_PREFETCH: runs claimed ahead of the free slots wait, under their lease, for a slot. */
describe('a worker that claims ahead (WORKER_PREFETCH)', () => {
  const { t, ids } = useTestApp({ WORKER_CONCURRENCY: '1', WORKER_PREFETCH: '2' });
  let ownerId: string;
  let quick: string;

  beforeAll(async () => {
    ownerId = ids.users.alice!;
    quick = await upsertScripted(t, 'prefetched-answer', { rounds: [{ delayMs: 400, text: 'Done.' }] });
  });

  it('claims three runs at once, executes one at a time, and completes each exactly once', async () => {
    const executor = t.app.get(RunExecutor);
    const watch = watchExecuting(executor);
    const queued = await enqueue(t, quick, ownerId, 3);
    t.app.get(QueuedRunPicker).wake();
    await until(
      async () => (await rows(t, queued)).every((r) => r.status === 'RUNNING'),
      10_000,
      'all three claimed',
    );
    // why: claimed and waiting for the one slot: nothing of theirs executed yet.
    const claimed = await rows(t, queued);
    expect(claimed.filter((r) => r.step_count === 0).length).toBeGreaterThanOrEqual(2);
    expect(claimed.every((r) => r.lease_token !== null)).toBe(true);
    await until(
      async () => (await rows(t, queued)).every((r) => r.status === 'COMPLETED'),
      15_000,
      'all three completed',
    );
    expect(watch.stop()).toBe(1);
    expect((await rows(t, queued)).map((r) => r.llm_steps)).toEqual([1, 1, 1]);
  });

  it('gives a run still waiting for a slot back to the queue at shutdown, untouched', async () => {
    const slow = await upsertScripted(t, 'prefetched-slow', { rounds: [{ delayMs: 1500, text: 'Slow.' }] });
    const executor = t.app.get(RunExecutor);
    const picker = t.app.get(QueuedRunPicker);
    const queued = await enqueue(t, slow, ownerId, 2);
    picker.wake();
    // why: both claims commit before the executor hands the first one its slot; on a slow machine
    // a read between the two sees both RUNNING and none executing yet.
    await until(
      async () =>
        (await rows(t, queued)).every((r) => r.status === 'RUNNING') && executor.executingCount() > 0,
      10_000,
      'both claimed, one executing',
    );
    expect(executor.executingCount()).toBe(1);
    // The shutdown's order (WorkerLifecycle, then the executor's hook): claiming stops first.
    await picker.stop();
    await executor.onApplicationShutdown();
    const [first, second] = await rows(t, queued);
    expect(first).toMatchObject({ status: 'COMPLETED', llm_steps: 1 });
    expect(second).toMatchObject({ status: 'QUEUED', step_count: 0, lease_token: null, llm_steps: 0 });
  });
});
