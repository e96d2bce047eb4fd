import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import { LEASE_SECONDS, runningRun, step, stepSequences, suiteKit } from './runs-support';

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
