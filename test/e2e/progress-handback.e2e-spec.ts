import { RecordedDecisions } from '../../src/modules/approvals';
import {
  decide,
  digestOf,
  effects,
  ProgressFrame,
  receiptOf,
  RUN_PROGRESS,
  startResting,
} from '../support/decisions';
import { collect, until, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

/**
 * runProgress across the durable path (docs/streaming.md): a client that subscribed while
 * the run waited sees the decision recorded and, when a worker hands it back, a SETTLED with the
 * waiting status and the same turn; then the stream completes.
 */
describe('runProgress: a decision handed back by a worker', () => {
  // no picker in this process: the test picks the recorded decision up itself
  const { t, ids } = useTestApp({ DECISION_PATH: 'durable', WORKER_ENABLED: 'false' });

  it('a subscriber from before the decision gets DECISION_RECORDED, then SETTLED WAITING_FOR_APPROVAL', async () => {
    await t.dataSource.query('DELETE FROM worker_heartbeat');
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.About,
    });
    const before = await effects(t, runId, { pageId: ids.pages.About! });
    const stream = collect<ProgressFrame>(t.ws('bob'), RUN_PROGRESS, { runId });
    await until(() => stream.events.length >= 1, 10_000, 'the snapshot');

    await t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-worker', 'worker:test')
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );
    const receipt = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt).toMatchObject({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
    await until(() => stream.events.length >= 2, 10_000, 'the recorded decision on the stream');

    await t.dataSource.query(`UPDATE configuration SET is_active = false WHERE identifier = 'demo-editor'`);
    try {
      expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
    } finally {
      await t.dataSource.query(`UPDATE configuration SET is_active = true WHERE identifier = 'demo-editor'`);
    }
    const closed = await Promise.race([
      stream.done.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
    ]);
    expect(closed).toBe(true);
    expect(stream.errors).toEqual([]);
    const base = { runId, stepCount: before.stepCount, turn: 1, keepAlive: false };
    expect(stream.events.map((e) => e.runProgress)).toEqual([
      { kind: 'PROGRESS', status: 'WAITING_FOR_APPROVAL', ...base },
      { kind: 'PROGRESS', status: 'DECISION_RECORDED', ...base },
      { kind: 'SETTLED', status: 'WAITING_FOR_APPROVAL', ...base },
    ]);
    expect(await effects(t, runId, { pageId: ids.pages.About! })).toMatchObject({
      status: 'WAITING_FOR_APPROVAL',
      stepCount: before.stepCount,
      page: before.page,
    });

    // the turn is open again: a new decision (inline) goes through, and a new subscriber follows it
    await t.dataSource.query('DELETE FROM worker_heartbeat');
    const again = collect<ProgressFrame>(t.ws('bob'), RUN_PROGRESS, { runId });
    await until(() => again.events.length >= 1, 10_000, 'the second snapshot');
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    await again.done;
    expect(again.events[again.events.length - 1]!.runProgress).toMatchObject({
      kind: 'SETTLED',
      status: 'COMPLETED',
    });
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
  });
});
