import { useTestDatabase } from '../../support/test-database';
import { LEASE_SECONDS, queuedRun, rowOf, RunsKit, runsKit } from './runs-support';

/** QUEUED -> RUNNING by a worker (docs/decisions.md, "Workers and their heartbeat"). */
describe('claimQueued', () => {
  const suite = useTestDatabase();
  let kit: RunsKit;

  beforeAll(async () => {
    kit = await runsKit(suite.ds);
  });

  beforeEach(async () => {
    await suite.ds.query(`UPDATE run SET status = 'CANCELLED' WHERE status = 'QUEUED'`);
  });

  it('claims at most `limit` runs, oldest first, each under its own fresh lease', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await queuedRun(kit);
      await suite.ds.query(`UPDATE run SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [
        id,
        100 - i,
      ]);
      ids.push(id);
    }
    const first = await kit.claims.claimQueued('worker:int:a', LEASE_SECONDS, 2);
    expect(first.map((c) => c.run.id).sort()).toEqual(ids.slice(0, 2).sort());
    const second = await kit.claims.claimQueued('worker:int:b', LEASE_SECONDS, 2);
    expect(second.map((c) => c.run.id).sort()).toEqual(ids.slice(2, 4).sort());
    const tokens = [...first, ...second].map((c) => c.lease.token);
    expect(new Set(tokens).size).toBe(4);
    for (const c of [...first, ...second]) {
      const row = await rowOf(suite.ds, c.run.id);
      expect(row).toMatchObject({
        status: 'RUNNING',
        claimed_by: c.lease.claimedBy,
        lease_token: c.lease.token,
      });
      expect((row.lease_expires_at as Date).getTime()).toBeGreaterThan(
        Date.now() + (LEASE_SECONDS - 5) * 1000,
      );
      expect(row.started_at).not.toBeNull();
      expect(c.run.status).toBe('RUNNING');
    }
    expect((await rowOf(suite.ds, ids[4]!)).status).toBe('QUEUED');
    expect(await kit.claims.claimQueued('worker:int:c', LEASE_SECONDS, 0)).toEqual([]);
  });

  it('keeps the first start time of a requeued run and claims nothing when nothing is queued', async () => {
    const id = await queuedRun(kit);
    await suite.ds.query(
      `UPDATE run SET started_at = '2020-01-01T00:00:00Z', requeue_count = 1 WHERE id = $1`,
      [id],
    );
    const [claim] = await kit.claims.claimQueued('worker:int:d', LEASE_SECONDS, 10);
    expect(claim?.run.id).toBe(id);
    expect(claim?.run.startedAt?.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(claim?.run.requeueCount).toBe(1);
    expect(await kit.claims.claimQueued('worker:int:d', LEASE_SECONDS, 10)).toEqual([]);
  });
});
