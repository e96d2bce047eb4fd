import { randomUUID } from 'node:crypto';
import { decide, digestOf, receiptOf, startResting } from '../support/decisions';
import { demoIds, waitForRest } from '../support/runs';
import { errorCode, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';
import type { WorkerStatus } from '../support/generated/schema';

const STATUS = `{ workerStatus { liveWorkers queued decisionsRecorded expiredLeases oldestWaitSeconds healthy } }`;

interface StatusData {
  workerStatus: Omit<WorkerStatus, '__typename'>;
}

async function heartbeats(t: TestApp): Promise<Array<{ worker_id: string; name: string }>> {
  return t.dataSource.query('SELECT worker_id, name FROM worker_heartbeat');
}

/** A RUNNING run whose lease expired a while ago (its process died). */
async function abandonedRun(t: TestApp): Promise<string> {
  const id = randomUUID();
  await t.dataSource.query(
    `INSERT INTO run (id, configuration_id, owner_id, max_iterations, status, checkpoint, claimed_by,
       lease_token, lease_expires_at, started_at)
     SELECT $1, c.id, u.id, 5, 'RUNNING', 'x', 'worker:gone:1', gen_random_uuid(), now() - interval '1 minute', now()
       FROM configuration c, app_user u WHERE c.identifier = 'demo-editor' AND u.username = 'alice'`,
    [id],
  );
  return id;
}

describe('workerStatus (the server with its in-process worker)', () => {
  // why: a reaper pass only at start, so an expired lease stays for the query to see.
  const { t } = useTestApp({ REAPER_INTERVAL_SECONDS: '3600' });

  it('counts the in-process worker as live (its heartbeat row) and reports healthy when nothing waits', async () => {
    const rows = await heartbeats(t);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.worker_id).toMatch(/^[0-9a-f]{16}$/);
    expect(rows[0]!.name).toMatch(/^api:.+:\d+$/);
    const res = await t.gql<StatusData>(STATUS, {}, 'admin');
    expect(res.errors).toBeUndefined();
    expect(res.data?.workerStatus).toEqual({
      liveWorkers: 1,
      queued: 0,
      decisionsRecorded: 0,
      expiredLeases: 0,
      oldestWaitSeconds: null,
      healthy: true,
    });
  });

  it('is refused to a non-admin with FORBIDDEN', async () => {
    for (const user of ['alice', 'bob']) {
      const res = await t.gql<StatusData>(STATUS, {}, user);
      expect(errorCode(res)).toBe('FORBIDDEN');
      expect(res.data).toBeNull();
    }
  });

  it('reports an expired lease as unhealthy', async () => {
    const id = await abandonedRun(t);
    const res = await t.gql<StatusData>(STATUS, {}, 'admin');
    expect(res.data?.workerStatus).toMatchObject({ liveWorkers: 1, expiredLeases: 1, healthy: false });
    await t.dataSource.query(
      `UPDATE run SET status = 'CANCELLED', lease_token = NULL, lease_expires_at = NULL WHERE id = $1`,
      [id],
    );
    const after = await t.gql<StatusData>(STATUS, {}, 'admin');
    expect(after.data?.workerStatus).toMatchObject({ expiredLeases: 0, healthy: true });
  });
});

describe('workerStatus on an API-only instance (WORKER_ENABLED=false)', () => {
  const { t } = useTestApp({ WORKER_ENABLED: 'false' });

  it('writes no heartbeat and reports no live worker: unhealthy', async () => {
    expect(await heartbeats(t)).toEqual([]);
    const res = await t.gql<StatusData>(STATUS, {}, 'admin');
    expect(res.data?.workerStatus).toMatchObject({ liveWorkers: 0, expiredLeases: 0, healthy: false });
  });
});

describe('the in-process worker with DECISION_PATH=auto (the embedded default)', () => {
  // why: the test default is DECISION_PATH=inline; auto is what `npm start` runs with.
  const { t } = useTestApp({ DECISION_PATH: 'auto' });

  it('takes decisions DURABLE (its heartbeat makes it a live worker) and carries them out at once', async () => {
    const ids = await demoIds(t);
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Widget,
    });
    const receipt = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt).toMatchObject({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const [decision] = await t.dataSource.query('SELECT path, outcome FROM decision WHERE run_id = $1', [
      runId,
    ]);
    expect(decision).toEqual({ path: 'DURABLE', outcome: 'COMPLETED' });
    const [run] = await t.dataSource.query('SELECT claimed_by, lease_token FROM run WHERE id = $1', [runId]);
    expect(run).toEqual({ claimed_by: null, lease_token: null });
  });
});

describe('the reconcile of an API-only instance (WORKER_ENABLED=false)', () => {
  const { t } = useTestApp({ WORKER_ENABLED: 'false', DECISION_PATH: 'auto', DECISION_PICKUP_SECONDS: '1' });

  it('leaves a recorded decision to the live worker, and carries it out itself once no worker is live', async () => {
    const ids = await demoIds(t);
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.About,
    });
    // A worker elsewhere is live while the decision is taken: it is recorded for it.
    await t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('0123456789abcdef', 'worker:elsewhere:1')`,
    );
    const receipt = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt).toMatchObject({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
    // While that worker is live, this instance does not touch the decision, overdue or not.
    await new Promise((r) => setTimeout(r, 2500));
    const [waiting] = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [runId]);
    expect(waiting.status).toBe('DECISION_RECORDED');
    // The worker goes away (its heartbeat goes stale): the reconcile takes the decision here.
    await t.dataSource.query(`UPDATE worker_heartbeat SET last_seen = now() - interval '1 hour'`);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const [decision] = await t.dataSource.query('SELECT path, outcome FROM decision WHERE run_id = $1', [
      runId,
    ]);
    expect(decision).toEqual({ path: 'DURABLE', outcome: 'COMPLETED' });
  });
});
