import { CANCELLABLE_STATUSES } from '../../../src/modules/runs/core/run-status';
import { itOnPostgres, useTestDatabase } from '../../support/test-database';
import {
  LEASE_SECONDS,
  queuedRun,
  race,
  rowOf,
  runningRun,
  RunsKit,
  runsKit,
  step,
  stepSequences,
  waitingRun,
} from './runs-support';

const CALLERS = 20;
const ROUNDS = 5;

/**
 * Every transition is one conditional UPDATE that counts only when it changed one row
 * (docs/run-lifecycle.md): many concurrent attempts of the same transition, exactly one wins.
 */
describe('run transitions under concurrency (PostgreSQL)', () => {
  // why: a pool as large as the crowd, so the statements really run side by side.
  const suite = useTestDatabase({ poolSize: CALLERS + 5 });
  let kit: RunsKit;

  beforeAll(async () => {
    kit = await runsKit(suite.ds);
  });

  itOnPostgres(`${CALLERS} concurrent cancels of one waiting run: exactly one wins`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const id = await waitingRun(kit);
      const results = await race(CALLERS, () => kit.settling.cancel(id, CANCELLABLE_STATUSES, null));
      expect(results.filter(Boolean)).toHaveLength(1);
      const row = await rowOf(suite.ds, id);
      expect(row).toMatchObject({ status: 'CANCELLED', termination_reason: 'CANCELLED', checkpoint: null });
    }
  });

  itOnPostgres(`${CALLERS} concurrent settles under the same lease: exactly one write lands`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const lease = await runningRun(kit);
      const results = await race(CALLERS, (i) =>
        kit.settling.settle(
          lease,
          { status: 'COMPLETED', reason: 'COMPLETED', answer: `answer ${i}` },
          [],
          null,
        ),
      );
      const winners = results.flatMap((ok, i) => (ok ? [i] : []));
      expect(winners).toHaveLength(1);
      const row = await rowOf(suite.ds, lease.runId);
      expect(row).toMatchObject({ status: 'COMPLETED', answer: `answer ${winners[0]}`, lease_token: null });
    }
  });

  itOnPostgres('concurrent cancels and settles of one running run: one of them, never both', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const lease = await runningRun(kit);
      const results = await race(CALLERS, (i) =>
        i % 2 === 0
          ? kit.settling.cancel(lease.runId, CANCELLABLE_STATUSES, null)
          : kit.settling.settle(
              lease,
              { status: 'COMPLETED', reason: 'COMPLETED', answer: 'done' },
              [],
              null,
            ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const row = await rowOf(suite.ds, lease.runId);
      expect(['CANCELLED', 'COMPLETED']).toContain(row.status);
      expect(row.answer).toBe(row.status === 'COMPLETED' ? 'done' : null);
    }
  });

  itOnPostgres(`${CALLERS} concurrent claims of one queued run: exactly one claimer gets it`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const id = await queuedRun(kit);
      const claims = await race(CALLERS, (i) => kit.claimQueued(`worker:int:${i}`, 1));
      const winners = claims.flatMap((c, i) => (c.length > 0 ? [{ i, claim: c[0]! }] : []));
      expect(winners).toHaveLength(1);
      const { i, claim } = winners[0]!;
      expect(claim.run.id).toBe(id);
      expect(claim.run.status).toBe('RUNNING');
      const row = await rowOf(suite.ds, id);
      expect(row).toMatchObject({
        status: 'RUNNING',
        claimed_by: `worker:int:${i}`,
        lease_token: claim.lease.token,
      });
      expect(row.started_at).not.toBeNull();
      expect(
        await kit.settling.settle(claim.lease, { status: 'COMPLETED', reason: 'COMPLETED' }, [], null),
      ).not.toBeNull();
    }
  });

  itOnPostgres('concurrent claimers of many queued runs take disjoint sets (SKIP LOCKED)', async () => {
    const ids = new Set<string>();
    for (let n = 0; n < 12; n++) ids.add(await queuedRun(kit));
    const claims = await race(6, (i) => kit.claimQueued(`worker:many:${i}`, 3));
    for (const c of claims) expect(c.length).toBeLessThanOrEqual(3);
    const claimed = claims.flatMap((c, i) => c.map((x) => ({ id: x.run.id, by: `worker:many:${i}` })));
    expect(new Set(claimed.map((c) => c.id)).size).toBe(claimed.length);
    expect(claimed.length).toBeGreaterThan(0);
    for (const c of claimed) {
      expect(ids.has(c.id)).toBe(true);
      expect(await rowOf(suite.ds, c.id)).toMatchObject({ status: 'RUNNING', claimed_by: c.by });
    }
    const [counts] = await suite.ds.query<Array<{ running: string; queued: string }>>(
      `SELECT count(*) FILTER (WHERE status = 'RUNNING') AS running, count(*) FILTER (WHERE status = 'QUEUED') AS queued
         FROM run WHERE id = ANY($1::uuid[])`,
      [[...ids]],
    );
    expect(Number(counts!.running)).toBe(claimed.length);
    expect(Number(counts!.queued)).toBe(ids.size - claimed.length);
    await suite.ds.query(`UPDATE run SET status = 'CANCELLED' WHERE id = ANY($1::uuid[])`, [[...ids]]);
  });

  itOnPostgres(
    `${CALLERS} concurrent appends under one lease: sequences 1..${CALLERS}, no gap, no duplicate`,
    async () => {
      const lease = await runningRun(kit);
      const sequences = await race(CALLERS, (i) => kit.repository.appendStep(lease, step(i), LEASE_SECONDS));
      const expected = Array.from({ length: CALLERS }, (_, i) => i + 1);
      expect([...sequences].sort((a, b) => a! - b!)).toEqual(expected);
      expect(await stepSequences(suite.ds, lease.runId)).toEqual(expected);
      const payloads = await suite.ds.query<Array<{ n: number }>>(
        `SELECT (payload->>'n')::int AS n FROM run_step WHERE run_id = $1 ORDER BY n`,
        [lease.runId],
      );
      expect(payloads.map((p) => p.n)).toEqual(expected.map((s) => s - 1));
      expect((await rowOf(suite.ds, lease.runId)).step_count).toBe(CALLERS);
    },
  );
});
