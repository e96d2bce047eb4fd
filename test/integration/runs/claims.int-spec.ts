import { ContentRepository } from '../../../src/modules/content/persistence/content.repository';
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
    const first = await kit.claimQueued('worker:int:a', 2);
    expect(first.map((c) => c.run.id).sort()).toEqual(ids.slice(0, 2).sort());
    const second = await kit.claimQueued('worker:int:b', 2);
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
    expect(await kit.claimQueued('worker:int:c', 0)).toEqual([]);
  });

  it('keeps the first start time of a requeued run and claims nothing when nothing is queued', async () => {
    const id = await queuedRun(kit);
    await suite.ds.query(
      `UPDATE run SET started_at = '2020-01-01T00:00:00Z', requeue_count = 1 WHERE id = $1`,
      [id],
    );
    const [claim] = await kit.claimQueued('worker:int:d', 10);
    expect(claim?.run.id).toBe(id);
    expect(claim?.run.startedAt?.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(claim?.run.requeueCount).toBe(1);
    expect(await kit.claimQueued('worker:int:d', 10)).toEqual([]);
  });

  it('reads the configuration, the owner with groups and the page the run is about in the claim', async () => {
    const [page] = await suite.ds.query<Array<{ id: number }>>(
      `SELECT id FROM page WHERE parent_id IS NOT NULL ORDER BY id LIMIT 1`,
    );
    const about = await queuedRun(kit);
    await suite.ds.query(`UPDATE run SET subject_page_id = $2 WHERE id = $1`, [about, page!.id]);
    const plain = await queuedRun(kit);
    const claims = await kit.claimQueued('worker:int:e', 10);
    const joined = (id: string) => claims.find((c) => c.run.id === id)!.joined;
    for (const id of [about, plain]) {
      expect(joined(id).configuration).toMatchObject({ id: kit.configurationId, identifier: 'demo-editor' });
      expect(joined(id).owner).toMatchObject({ id: kit.ownerId, username: 'alice' });
      expect((joined(id).owner as { groups: unknown[] }).groups.length).toBeGreaterThan(0);
    }
    expect(joined(about).page).toMatchObject({ page: { id: page!.id } });
    // a run without a subject page is about the page its tools default to: the first site's root
    const root = await new ContentRepository(suite.ds).firstRootPageId();
    expect(joined(plain).page).toMatchObject({ page: { id: root } });
  });
});
