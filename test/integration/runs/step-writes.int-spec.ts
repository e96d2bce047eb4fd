import { randomUUID } from 'node:crypto';
import type { Lease } from '../../../src/modules/runs/persistence/runs.repository';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import { LEASE_SECONDS, pausedState, runningRun, step, stepSequences, suiteKit } from './runs-support';

/**
 * The step write (`appendStep`, docs/run-lifecycle.md): one prepared statement that bumps
 * `step_count`, inserts the step and renews the lease once half of it is used up.
 */
describe('appendStep', () => {
  const suite = suiteKit();
  const ds = () => suite.kit.ds;

  /** Seconds left on the run's lease, as the server sees it. */
  async function leaseLeft(runId: string): Promise<number> {
    const [row] = await ds().query<Array<{ left: number }>>(
      `SELECT extract(epoch FROM lease_expires_at - now())::float8 AS left FROM run WHERE id = $1`,
      [runId],
    );
    return row!.left;
  }

  async function setLeaseLeft(runId: string, seconds: number): Promise<void> {
    await ds().query(`UPDATE run SET lease_expires_at = now() + make_interval(secs => $2) WHERE id = $1`, [
      runId,
      seconds,
    ]);
  }

  it('leaves the lease as it is while more than half of it is left', async () => {
    const lease = await runningRun(suite.kit);
    await setLeaseLeft(lease.runId, LEASE_SECONDS * 0.6);
    const [before] = await ds().query<Array<{ at: Date }>>(
      `SELECT lease_expires_at AS at FROM run WHERE id = $1`,
      [lease.runId],
    );
    expect(await suite.kit.repository.appendStep(lease, step(1), LEASE_SECONDS)).toBe(1);
    const [after] = await ds().query<Array<{ at: Date; n: number }>>(
      `SELECT lease_expires_at AS at, step_count AS n FROM run WHERE id = $1`,
      [lease.runId],
    );
    expect(after!.at.getTime()).toBe(before!.at.getTime());
    expect(after!.n).toBe(1);
  });

  it('renews the lease to its full length once half of it is used up', async () => {
    const lease = await runningRun(suite.kit);
    await setLeaseLeft(lease.runId, LEASE_SECONDS * 0.4);
    expect(await suite.kit.repository.appendStep(lease, step(1), LEASE_SECONDS)).toBe(1);
    expect(await leaseLeft(lease.runId)).toBeGreaterThan(LEASE_SECONDS - 5);
  });

  it('renews a lease that has already run out, while the run is still its own', async () => {
    const lease = await runningRun(suite.kit);
    await setLeaseLeft(lease.runId, -1);
    expect(await suite.kit.repository.appendStep(lease, step(1), LEASE_SECONDS)).toBe(1);
    expect(await leaseLeft(lease.runId)).toBeGreaterThan(LEASE_SECONDS - 5);
  });

  it('writes inside the caller transaction: a rollback takes the step and the count with it', async () => {
    const lease = await runningRun(suite.kit);
    expect(await suite.kit.repository.appendStep(lease, step(1), LEASE_SECONDS)).toBe(1);
    const transactions = new TransactionRunner(ds());
    await expect(
      transactions.run(async () => {
        expect(await suite.kit.repository.appendStep(lease, step(2), LEASE_SECONDS)).toBe(2);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await stepSequences(ds(), lease.runId)).toEqual([1]);
    expect(await suite.kit.repository.appendStep(lease, step(2), LEASE_SECONDS)).toBe(2);
    const [row] = await ds().query<Array<{ n: number }>>(`SELECT step_count AS n FROM run WHERE id = $1`, [
      lease.runId,
    ]);
    expect(row!.n).toBe(2);
    expect(await stepSequences(ds(), lease.runId)).toEqual([1, 2]);
  });

  it('gives every step of many runs the next sequence on pooled connections', async () => {
    const leases = await Promise.all([1, 2, 3, 4, 5, 6].map(() => runningRun(suite.kit)));
    for (let n = 1; n <= 5; n++) {
      const got = await Promise.all(
        leases.map((l) => suite.kit.repository.appendStep(l, step(n), LEASE_SECONDS)),
      );
      expect(got).toEqual(leases.map(() => n));
    }
    for (const l of leases) expect(await stepSequences(ds(), l.runId)).toEqual([1, 2, 3, 4, 5]);
  });
});

/**
 * `appendSteps`: a pickup's decision steps, one per run, for several runs in one statement,
 * each fenced by its own lease.
 */
describe('appendSteps', () => {
  const suite = suiteKit();
  const ds = () => suite.kit.ds;

  it('gives each run its next sequence and stores nothing for a run whose lease was lost or that stopped', async () => {
    const leases = await Promise.all([1, 2, 3, 4].map(() => runningRun(suite.kit)));
    const [a, b, lost, stopped] = leases as [Lease, Lease, Lease, Lease];
    expect(await suite.kit.repository.appendStep(b, step(1), LEASE_SECONDS)).toBe(1);
    await ds().query(`UPDATE run SET status = 'CANCELLED' WHERE id = $1`, [stopped.runId]);
    const got = await suite.kit.repository.appendSteps(
      [
        { lease: a, step: step(10) },
        { lease: b, step: step(20) },
        { lease: { ...lost, token: randomUUID() }, step: step(30) },
        { lease: stopped, step: step(40) },
      ],
      LEASE_SECONDS,
    );
    expect(Object.fromEntries(got)).toEqual({ [a.runId]: 1, [b.runId]: 2 });
    const rows = await ds().query<Array<{ run_id: string; sequence: number; duration_ms: number }>>(
      `SELECT run_id, sequence, duration_ms FROM run_step WHERE run_id = ANY($1::uuid[]) ORDER BY duration_ms`,
      [leases.map((l) => l.runId)],
    );
    expect(rows).toEqual([
      { run_id: b.runId, sequence: 1, duration_ms: 1 },
      { run_id: a.runId, sequence: 1, duration_ms: 10 },
      { run_id: b.runId, sequence: 2, duration_ms: 20 },
    ]);
    const counts = await ds().query<Array<{ id: string; step_count: number }>>(
      `SELECT id, step_count FROM run WHERE id = ANY($1::uuid[])`,
      [leases.map((l) => l.runId)],
    );
    expect(Object.fromEntries(counts.map((r) => [r.id, r.step_count]))).toEqual({
      [a.runId]: 1,
      [b.runId]: 2,
      [lost.runId]: 0,
      [stopped.runId]: 0,
    });
  });

  it('takes one step per run, and nothing for no runs', async () => {
    const lease = await runningRun(suite.kit);
    await expect(
      suite.kit.repository.appendSteps(
        [
          { lease, step: step(1) },
          { lease, step: step(2) },
        ],
        LEASE_SECONDS,
      ),
    ).rejects.toThrow('one step per run');
    expect(await suite.kit.repository.appendSteps([], LEASE_SECONDS)).toEqual(new Map());
    expect(await stepSequences(ds(), lease.runId)).toEqual([]);
  });
});

/**
 * A write call's end (`completeEffect`): its steps in order, the pending effect cleared and
 * the state after the write stored, in one statement under the lease.
 */
describe('completeEffect', () => {
  const suite = suiteKit();
  const ds = () => suite.kit.ds;

  async function runRow(runId: string) {
    const [row] = await ds().query<
      Array<{ step_count: number; pending_effect: unknown; checkpoint: string; lease_left: number }>
    >(
      `SELECT step_count, pending_effect, checkpoint,
              extract(epoch FROM lease_expires_at - now())::float8 AS lease_left FROM run WHERE id = $1`,
      [runId],
    );
    return row!;
  }

  async function stepsOf(runId: string) {
    return ds().query<
      Array<{ sequence: number; kind: string; round: number; duration_ms: number; payload: unknown }>
    >(
      'SELECT sequence, kind, round, duration_ms, payload FROM run_step WHERE run_id = $1 ORDER BY sequence',
      [runId],
    );
  }

  it('records the steps after the earlier ones, clears the effect and stores the checkpoint', async () => {
    const lease = await runningRun(suite.kit);
    expect(await suite.kit.repository.appendStep(lease, step(1), LEASE_SECONDS)).toBe(1);
    expect(
      await suite.kit.repository.setPendingEffect(lease, { callId: 'c1', toolName: 'pages_update' }),
    ).toBe(true);
    const sealed = suite.kit.vault.seal(lease.runId, { v: 1, kind: 'state', state: pausedState(false) });
    const write = {
      kind: 'TOOL_WRITE' as const,
      round: 2,
      durationMs: 0,
      payload: { table: 'page_text', quote: `it's "done"` },
    };
    const sequences = await suite.kit.repository.completeEffect(
      lease,
      [{ ...step(2), round: 2 }, write],
      LEASE_SECONDS,
      sealed,
    );
    expect(sequences).toEqual([2, 3]);
    const row = await runRow(lease.runId);
    expect(row).toMatchObject({ step_count: 3, pending_effect: null, checkpoint: sealed });
    expect(await stepsOf(lease.runId)).toEqual([
      { sequence: 1, kind: 'TOOL', round: 1, duration_ms: 1, payload: { n: 1 } },
      { sequence: 2, kind: 'TOOL', round: 2, duration_ms: 2, payload: { n: 2 } },
      { sequence: 3, kind: 'TOOL_WRITE', round: 2, duration_ms: 0, payload: write.payload },
    ]);
    expect(await suite.kit.repository.appendStep(lease, step(4), LEASE_SECONDS)).toBe(4);
  });

  it('keeps the checkpoint where none is handed over, and renews a lease half used up', async () => {
    const lease = await runningRun(suite.kit);
    const before = (await runRow(lease.runId)).checkpoint;
    await ds().query(`UPDATE run SET lease_expires_at = now() + make_interval(secs => $2) WHERE id = $1`, [
      lease.runId,
      LEASE_SECONDS * 0.4,
    ]);
    expect(await suite.kit.repository.completeEffect(lease, [step(1)], LEASE_SECONDS)).toEqual([1]);
    const row = await runRow(lease.runId);
    expect(row.checkpoint).toBe(before);
    expect(row.lease_left).toBeGreaterThan(LEASE_SECONDS - 5);
  });

  it('stores nothing for a run that is no longer RUNNING', async () => {
    const lease = await runningRun(suite.kit);
    await ds().query(`UPDATE run SET status = 'CANCELLED' WHERE id = $1`, [lease.runId]);
    expect(await suite.kit.repository.completeEffect(lease, [step(1), step(2)], LEASE_SECONDS)).toBeNull();
    expect(await stepsOf(lease.runId)).toEqual([]);
    expect((await runRow(lease.runId)).step_count).toBe(0);
  });
});
