import type { Lease } from '../../../src/modules/runs/persistence/runs.repository';
import { useTestDatabase } from '../../support/test-database';
import {
  expireLease,
  LEASE_SECONDS,
  pausedState,
  rowOf,
  runningRun,
  RunsKit,
  runsKit,
  step,
  stepSequences,
} from './runs-support';

/**
 * Fencing (docs/run-lifecycle.md): a process whose lease was taken over commits nothing. The run
 * is taken over the way it happens in production: the lease expires, the reaper requeues the
 * run, another worker claims it under a new token.
 */
describe('a writer with a stale lease token', () => {
  const suite = useTestDatabase();
  let kit: RunsKit;
  let stale: Lease;
  let fresh: Lease;
  let before: Record<string, unknown>;

  beforeAll(async () => {
    kit = await runsKit(suite.ds);
    stale = await runningRun(kit);
    expect(await kit.repository.appendStep(stale, step(1), LEASE_SECONDS)).toBe(1);
    expect(await kit.repository.appendStep(stale, step(2), LEASE_SECONDS)).toBe(2);
    await expireLease(suite.ds, stale.runId);
    const reaped = await kit.reaping.reapExpired(100, null);
    expect(reaped).toMatchObject([{ id: stale.runId, status: 'QUEUED', terminationReason: null }]);
    const [claim] = await kit.claimQueued('worker:int:takeover', 1);
    expect(claim?.run.id).toBe(stale.runId);
    fresh = claim!.lease;
    expect(fresh.token).not.toBe(stale.token);
    before = await rowOf(suite.ds, stale.runId);
  });

  /** The row and the steps are exactly as the takeover left them. */
  async function expectUnchanged(): Promise<void> {
    expect(await rowOf(suite.ds, stale.runId)).toEqual(before);
    expect(await stepSequences(suite.ds, stale.runId)).toEqual([1, 2]);
  }

  it('cannot append a step', async () => {
    expect(await kit.repository.appendStep(stale, step(3), LEASE_SECONDS)).toBeNull();
    await expectUnchanged();
  });

  it('cannot renew the lease or mark a pending effect', async () => {
    expect(await kit.repository.renewLease(stale, 3600)).toBe(false);
    const sealed = kit.vault.seal(stale.runId, { v: 1, kind: 'state', state: pausedState(false) });
    expect(
      await kit.repository.setPendingEffect(stale, { callId: 'c1', toolName: 'pages_update' }, sealed),
    ).toBe(false);
    expect(await kit.repository.setPendingEffect(stale, null)).toBe(false);
    await expectUnchanged();
  });

  it("cannot record a write's steps or clear its effect", async () => {
    const sealed = kit.vault.seal(stale.runId, { v: 1, kind: 'state', state: pausedState(false) });
    expect(await kit.repository.completeEffect(stale, [step(3), step(4)], LEASE_SECONDS, sealed)).toBeNull();
    await expectUnchanged();
  });

  it('cannot suspend the run', async () => {
    const suspended = await kit.settling.suspend(
      stale,
      {
        status: 'WAITING_FOR_APPROVAL',
        checkpoint: kit.vault.seal(stale.runId, { v: 1, kind: 'state', state: pausedState() }),
        turn: 1,
        turnDigest: 'b'.repeat(64),
        counters: { iterations: 1, promptTokens: 1, completionTokens: 1 },
      },
      [step(3)],
      null,
    );
    expect(suspended).toBeNull();
    await expectUnchanged();
  });

  it('cannot settle the run', async () => {
    expect(
      await kit.settling.settle(
        stale,
        { status: 'COMPLETED', reason: 'COMPLETED', answer: 'stale' },
        [step(3), step(4)],
        null,
      ),
    ).toBeNull();
    expect(
      await kit.settling.settle(
        stale,
        { status: 'FAILED', reason: 'PROVIDER_FAILED', errorMessage: 'x' },
        [],
        null,
      ),
    ).toBeNull();
    await expectUnchanged();
  });

  it('while the new holder continues the sequence and settles', async () => {
    expect(before).toMatchObject({ status: 'RUNNING', requeue_count: 1, lease_token: fresh.token });
    expect(await kit.repository.appendStep(fresh, step(3), LEASE_SECONDS)).toBe(3);
    // why: the settle stores the segment's last steps in its own statement, after the stored ones.
    expect(
      await kit.settling.settle(
        fresh,
        { status: 'COMPLETED', reason: 'COMPLETED', answer: 'fresh' },
        [step(4), step(5)],
        null,
      ),
    ).toMatchObject({ stepCount: 5 });
    expect(await stepSequences(suite.ds, stale.runId)).toEqual([1, 2, 3, 4, 5]);
    expect(await rowOf(suite.ds, stale.runId)).toMatchObject({
      status: 'COMPLETED',
      answer: 'fresh',
      step_count: 5,
    });
  });
});
