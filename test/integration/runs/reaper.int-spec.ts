import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import type { AppConfig } from '../../../src/config/app-config';
import type { ReapedRun } from '../../../src/modules/runs/persistence/run-reaping.repository';
import { REAP_MESSAGES } from '../../../src/modules/runs';
import { QueuedRunPicker, ReaperService } from '../../../src/modules/worker';
import { StatementLog } from '../../support/statement-log';
import { useTestDatabase } from '../../support/test-database';
import {
  expireLease,
  LEASE_SECONDS,
  rowOf,
  runningRun,
  RunsKit,
  runsKit,
  step,
  settlerFor,
} from './runs-support';

/** The reaper (docs/run-lifecycle.md): expired leases are requeued, or failed when retrying is unsafe or exhausted. */
describe('the reaper on a real database', () => {
  const suite = useTestDatabase({ quietLogs: true });
  let kit: RunsKit;

  beforeAll(async () => {
    kit = await runsKit(suite.ds);
  });

  const byId = (reaped: readonly ReapedRun[], id: string) => reaped.find((r) => r.id === id);

  it('requeues an expired run without a pending effect, keeping its checkpoint and steps', async () => {
    const lease = await runningRun(kit);
    await kit.repository.appendStep(lease, step(1), LEASE_SECONDS);
    const checkpoint = (await rowOf(suite.ds, lease.runId)).checkpoint;
    await expireLease(suite.ds, lease.runId);
    expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)).toMatchObject({
      id: lease.runId,
      status: 'QUEUED',
      terminationReason: null,
    });
    expect(await rowOf(suite.ds, lease.runId)).toMatchObject({
      status: 'QUEUED',
      requeue_count: 1,
      termination_reason: null,
      claimed_by: null,
      lease_token: null,
      lease_expires_at: null,
      finished_at: null,
      checkpoint,
      step_count: 1,
    });
  });

  it('sweeps with a prepared statement (planned once per connection, not at every pass)', async () => {
    const lease = await runningRun(kit);
    await expireLease(suite.ds, lease.runId);
    const log = StatementLog.open();
    try {
      expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)?.status).toBe('QUEUED');
    } finally {
      log.close();
    }
    const sweeps = log.statements.filter((s) => /^WITH due AS MATERIALIZED/.test(s.text));
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]!.name).toMatch(/^cs_/);
  });

  it('leaves runs whose lease has not expired alone', async () => {
    const lease = await runningRun(kit);
    expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)).toBeUndefined();
    expect(await rowOf(suite.ds, lease.runId)).toMatchObject({
      status: 'RUNNING',
      lease_token: lease.token,
      requeue_count: 0,
    });
  });

  it('fails a run requeued three times already with RETRIES_EXHAUSTED and blanks its state', async () => {
    const lease = await runningRun(kit);
    await suite.ds.query('UPDATE run SET requeue_count = 3 WHERE id = $1', [lease.runId]);
    await expireLease(suite.ds, lease.runId);
    expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)).toMatchObject({
      id: lease.runId,
      status: 'FAILED',
      terminationReason: 'RETRIES_EXHAUSTED',
    });
    const row = await rowOf(suite.ds, lease.runId);
    expect(row).toMatchObject({
      status: 'FAILED',
      requeue_count: 3,
      checkpoint: null,
      lease_token: null,
      claimed_by: null,
    });
    expect(row.finished_at).not.toBeNull();
  });

  it('counts requeues up to the limit over repeated expiries', async () => {
    // why: a claim takes the oldest queued run; only this test's run may be queued.
    await suite.ds.query(`UPDATE run SET status = 'CANCELLED' WHERE status = 'QUEUED'`);
    const lease = await runningRun(kit);
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      await expireLease(suite.ds, lease.runId);
      outcomes.push(byId(await kit.reaping.reapExpired(100, null), lease.runId)!.status);
      const [claim] = await kit.claimQueued('worker:int:again', 10);
      if (i < 3) expect(claim?.run.id).toBe(lease.runId);
      else expect(claim).toBeUndefined();
    }
    expect(outcomes).toEqual(['QUEUED', 'QUEUED', 'QUEUED', 'FAILED']);
    expect(await rowOf(suite.ds, lease.runId)).toMatchObject({
      termination_reason: 'RETRIES_EXHAUSTED',
      requeue_count: 3,
    });
  });

  it('fails a run whose write committed (pending effect applied) NOT_RETRYABLE and blanks its state', async () => {
    const lease = await runningRun(kit);
    expect(
      await kit.repository.setPendingEffect(lease, {
        callId: 'call_1',
        toolName: 'pages_update',
        effect: 'transactional',
      }),
    ).toBe(true);
    expect(await new TransactionRunner(suite.ds).run(() => kit.repository.markEffectApplied(lease))).toBe(
      true,
    );
    await expireLease(suite.ds, lease.runId);
    expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)).toMatchObject({
      id: lease.runId,
      status: 'FAILED',
      terminationReason: 'NOT_RETRYABLE',
      cause: 'EFFECT_APPLIED',
      errorMessage: REAP_MESSAGES.EFFECT_APPLIED,
    });
    const row = await rowOf(suite.ds, lease.runId);
    expect(row).toMatchObject({
      status: 'FAILED',
      requeue_count: 0,
      checkpoint: null,
      pending_effect: { callId: 'call_1', toolName: 'pages_update', effect: 'transactional', applied: true },
      error_message: REAP_MESSAGES.EFFECT_APPLIED,
      lease_token: null,
    });
  });

  it('requeues a run whose pending write never committed, clearing the effect and keeping its state', async () => {
    const lease = await runningRun(kit);
    const before = await rowOf(suite.ds, lease.runId);
    expect(
      await kit.repository.setPendingEffect(lease, {
        callId: 'call_2',
        toolName: 'pages_update',
        effect: 'transactional',
      }),
    ).toBe(true);
    // the write's transaction rolled back: its mark with it
    await new TransactionRunner(suite.ds)
      .run(async () => {
        expect(await kit.repository.markEffectApplied(lease)).toBe(true);
        throw new Error('the process died inside the write');
      })
      .catch(() => undefined);
    await expireLease(suite.ds, lease.runId);
    expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)).toMatchObject({
      id: lease.runId,
      status: 'QUEUED',
      terminationReason: null,
    });
    expect(await rowOf(suite.ds, lease.runId)).toMatchObject({
      status: 'QUEUED',
      requeue_count: 1,
      pending_effect: null,
      checkpoint: before.checkpoint,
      lease_token: null,
    });
  });

  it('records a transactional effect with its mark where it was not announced: applied if the write commits, absent if not', async () => {
    const effect = { callId: 'call_5', toolName: 'pages_update', effect: 'transactional' };
    const committed = await runningRun(kit);
    expect(
      await new TransactionRunner(suite.ds).run(() => kit.repository.markEffectApplied(committed, effect)),
    ).toBe(true);
    expect((await rowOf(suite.ds, committed.runId)).pending_effect).toEqual({ ...effect, applied: true });
    const rolledBack = await runningRun(kit);
    await new TransactionRunner(suite.ds)
      .run(async () => {
        expect(await kit.repository.markEffectApplied(rolledBack, effect)).toBe(true);
        throw new Error('the process died inside the write');
      })
      .catch(() => undefined);
    expect((await rowOf(suite.ds, rolledBack.runId)).pending_effect).toBeNull();
    // neither announced nor handed over: nothing to mark, the write must not go on
    const bare = await runningRun(kit);
    expect(await new TransactionRunner(suite.ds).run(() => kit.repository.markEffectApplied(bare))).toBe(
      false,
    );
    await Promise.all([committed, rolledBack].map((l) => expireLease(suite.ds, l.runId)));
    const reaped = await kit.reaping.reapExpired(100, null);
    expect(byId(reaped, committed.runId)).toMatchObject({ status: 'FAILED', cause: 'EFFECT_APPLIED' });
    expect(byId(reaped, rolledBack.runId)).toMatchObject({ status: 'QUEUED', terminationReason: null });
  });

  it('marks an effect applied only under the lease that holds the run', async () => {
    const lease = await runningRun(kit);
    await kit.repository.setPendingEffect(lease, { callId: 'call_3', toolName: 'pages_update' });
    const stale = { ...lease, token: '00000000-0000-4000-8000-000000000000' };
    expect(await new TransactionRunner(suite.ds).run(() => kit.repository.markEffectApplied(stale))).toBe(
      false,
    );
    expect((await rowOf(suite.ds, lease.runId)).pending_effect).toEqual({
      callId: 'call_3',
      toolName: 'pages_update',
    });
  });

  it('fails a run whose external effect was in flight NOT_RETRYABLE, naming the tool, even though nothing was marked', async () => {
    const lease = await runningRun(kit);
    await kit.repository.appendStep(lease, step(1), LEASE_SECONDS);
    const effect = { callId: 'call_4', toolName: 'send_newsletter', effect: 'external' };
    expect(await kit.repository.setPendingEffect(lease, effect)).toBe(true);
    await expireLease(suite.ds, lease.runId);
    const message = REAP_MESSAGES.EFFECT_EXTERNAL.replace('%s', 'send_newsletter');
    expect(byId(await kit.reaping.reapExpired(100, null), lease.runId)).toMatchObject({
      status: 'FAILED',
      terminationReason: 'NOT_RETRYABLE',
      cause: 'EFFECT_EXTERNAL',
      errorMessage: message,
    });
    const row = await rowOf(suite.ds, lease.runId);
    expect(row).toMatchObject({
      status: 'FAILED',
      termination_reason: 'NOT_RETRYABLE',
      error_message: message,
      requeue_count: 0,
      checkpoint: null,
      pending_effect: effect,
      lease_token: null,
      step_count: 1,
    });
    expect(row.finished_at).not.toBeNull();
    expect(message).toMatch(/external effect \(send_newsletter\).*not repeated/);
  });

  it('fails an applied external effect, and an effect recorded without a declaration, NOT_RETRYABLE too', async () => {
    const applied = await runningRun(kit);
    await kit.repository.setPendingEffect(applied, {
      callId: 'c',
      toolName: 'send_newsletter',
      effect: 'external',
    });
    await new TransactionRunner(suite.ds).run(() => kit.repository.markEffectApplied(applied));
    const undeclared = await runningRun(kit);
    // what a version before the rule recorded: no declaration, so it is not guessed to be safe
    await kit.repository.setPendingEffect(undeclared, { callId: 'c', toolName: 'pages_update' });
    await expireLease(suite.ds, applied.runId);
    await expireLease(suite.ds, undeclared.runId);
    const reaped = await kit.reaping.reapExpired(100, null);
    expect(byId(reaped, applied.runId)).toMatchObject({ status: 'FAILED', cause: 'EFFECT_APPLIED' });
    expect(byId(reaped, undeclared.runId)).toMatchObject({
      status: 'FAILED',
      terminationReason: 'NOT_RETRYABLE',
      cause: 'EFFECT_EXTERNAL',
    });
  });

  it('judges every run of one pass by its own pending effect', async () => {
    const none = await runningRun(kit);
    const unapplied = await runningRun(kit);
    await kit.repository.setPendingEffect(unapplied, {
      callId: 'a',
      toolName: 'pages_update',
      effect: 'transactional',
    });
    const external = await runningRun(kit);
    await kit.repository.setPendingEffect(external, {
      callId: 'b',
      toolName: 'send_newsletter',
      effect: 'external',
    });
    const exhausted = await runningRun(kit);
    await kit.repository.setPendingEffect(exhausted, {
      callId: 'c',
      toolName: 'pages_update',
      effect: 'transactional',
    });
    await suite.ds.query('UPDATE run SET requeue_count = 3 WHERE id = $1', [exhausted.runId]);
    for (const lease of [none, unapplied, external, exhausted]) await expireLease(suite.ds, lease.runId);
    const reaped = await kit.reaping.reapExpired(100, null);
    const verdict = (lease: { runId: string }) => {
      const r = byId(reaped, lease.runId)!;
      return [r.status, r.terminationReason, r.cause];
    };
    expect([none, unapplied, external, exhausted].map(verdict)).toEqual([
      ['QUEUED', null, null],
      ['QUEUED', null, null],
      ['FAILED', 'NOT_RETRYABLE', 'EFFECT_EXTERNAL'],
      ['FAILED', 'RETRIES_EXHAUSTED', 'RETRIES_EXHAUSTED'],
    ]);
    expect((await rowOf(suite.ds, unapplied.runId)).pending_effect).toBeNull();
    expect((await rowOf(suite.ds, exhausted.runId)).error_message).toBe(REAP_MESSAGES.RETRIES_EXHAUSTED);
  });

  it('ReaperService publishes TERMINAL and SETTLED for the runs it failed, and wakes the picker for requeues', async () => {
    const published: Array<{ topic: string; payload: any }> = [];
    const bus = {
      publish: (topic: string, payload: unknown) => Promise.resolve(void published.push({ topic, payload })),
    };
    let wakes = 0;
    const picker = { wake: () => void (wakes += 1) };
    const reaper = new ReaperService(
      settlerFor(kit, bus),
      picker as unknown as QueuedRunPicker,
      {
        reaperIntervalSeconds: 60,
        workerEnabled: false,
      } as AppConfig,
    );
    const requeued = await runningRun(kit);
    const failed = await runningRun(kit);
    await kit.repository.appendStep(failed, step(1), LEASE_SECONDS);
    await kit.repository.appendStep(failed, step(2), LEASE_SECONDS);
    await kit.repository.setPendingEffect(failed, {
      callId: 'call_9',
      toolName: 'pages_update',
      effect: 'transactional',
    });
    await new TransactionRunner(suite.ds).run(() => kit.repository.markEffectApplied(failed));
    await expireLease(suite.ds, requeued.runId);
    await expireLease(suite.ds, failed.runId);
    const reaped = await reaper.reapOnce();
    expect(reaped.map((r) => r.id).sort()).toEqual([requeued.runId, failed.runId].sort());
    expect(wakes).toBe(1);
    expect(published).toEqual([
      {
        topic: `run.trace.${failed.runId}`,
        payload: {
          type: 'TERMINAL',
          runId: failed.runId,
          outcome: 'ERROR',
          error: REAP_MESSAGES.EFFECT_APPLIED,
        },
      },
      {
        topic: `run.progress.${failed.runId}`,
        payload: {
          kind: 'SETTLED',
          runId: failed.runId,
          stepCount: 2,
          status: 'FAILED',
          turn: 0,
          keepAlive: false,
        },
      },
    ]);
    published.length = 0;
    expect(await reaper.reapOnce()).toEqual([]);
    expect(published).toEqual([]);
    expect(wakes).toBe(1);
  });
});
