import { randomUUID } from 'node:crypto';
import type { ToolDefinition, ToolEffect, ToolRegistry } from '../../src/agent';
import { AGENT_TOOLS, REAP_MESSAGES, RunExecutor, StateVault } from '../../src/modules/runs';
import { RunsRepository } from '../../src/modules/runs/persistence/runs.repository';
import { QueuedRunPicker } from '../../src/modules/worker';
import { decide, digestOf, receiptOf } from '../support/decisions';
import { collect, demoIds, startRun, until, waitForRest } from '../support/runs';
import { TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { enqueue, upsertScripted } from '../support/queued-runs';
import { itOnPostgres } from '../support/test-database';
import type { RunEvent, RunStep } from '../support/generated/schema';

const RUN_EVENTS = `subscription Trace($runId: ID!) { runEvents(runId: $runId) {
  kind outcome error step { sequence kind }
} }`;

interface TraceEvent {
  runEvents: Pick<RunEvent, 'kind' | 'outcome' | 'error'> & { step: Pick<RunStep, 'sequence'> | null };
}

/** Round 1 keeps the provider busy long enough to take the run over; round 2 answers. */
const SLOW_SCRIPT = {
  rounds: [{ delayMs: 2500, toolCalls: [{ name: 'pages_read', arguments: {} }] }, { text: 'Read and done.' }],
};

async function runRow(t: TestApp, id: string): Promise<Record<string, any>> {
  const rows: Array<Record<string, any>> = await t.dataSource.query('SELECT * FROM run WHERE id = $1', [id]);
  return rows[0]!;
}

async function stepsOf(t: TestApp, id: string): Promise<Array<{ sequence: number; kind: string }>> {
  return t.dataSource.query('SELECT sequence, kind FROM run_step WHERE run_id = $1 ORDER BY sequence', [id]);
}

/**
 * Simulates the executing process losing the run: its lease expired and another token is on
 * the row, so the original executor (still waiting on its provider in this process) is fenced.
 */
async function abandon(t: TestApp, id: string, pendingEffect: unknown = null): Promise<void> {
  const result: [unknown[], number] = await t.dataSource.query(
    `UPDATE run SET lease_token = gen_random_uuid(), lease_expires_at = now() - interval '1 second',
            pending_effect = $2 WHERE id = $1 AND status = 'RUNNING'`,
    [id, pendingEffect === null ? null : JSON.stringify(pendingEffect)],
  );
  expect(result[1]).toBe(1);
}

/** Takes the run away from its process as a lost lease does, leaving its pending effect as it is. */
async function cutOff(t: TestApp, id: string): Promise<void> {
  const result: [unknown[], number] = await t.dataSource.query(
    `UPDATE run SET lease_token = gen_random_uuid(), lease_expires_at = now() - interval '1 second'
      WHERE id = $1 AND status = 'RUNNING'`,
    [id],
  );
  expect(result[1]).toBe(1);
}

/** A test double: a write declaring `effect` whose first execution waits until released. */
function gatedWrite(name: string, effect: ToolEffect) {
  let enter: () => void = () => undefined;
  let open: () => void = () => undefined;
  const entered = new Promise<void>((r) => (enter = r));
  const released = new Promise<void>((r) => (open = r));
  const gate = { executions: 0, entered, release: () => open() };
  const tool: ToolDefinition = {
    name,
    description: `test double: a write with an ${effect} effect`,
    parameters: { type: 'object', additionalProperties: false, properties: { note: { type: 'string' } } },
    writes: true,
    effect,
    preview: (args) => Promise.resolve({ ok: true, value: [`note: ${String(args.note)}`] }),
    async execute() {
      gate.executions += 1;
      if (gate.executions === 1) {
        enter();
        await released;
      }
      return { ok: true, output: { done: true } };
    },
  };
  return { tool, gate };
}

describe('reaper and queued-run pickup end to end', () => {
  // why: a 2 s lease (renewed every second by the executor) rather than 1 s: the executor
  // renews at most once a second, so a 1 s lease could expire between two renewals and be
  // reaped for real in the middle of a takeover test.
  const { t, ids } = useTestApp({
    RUN_LEASE_SECONDS: '2',
    REAPER_INTERVAL_SECONDS: '1',
    WORKER_CONCURRENCY: '2',
  });
  let slowId: string;

  beforeAll(async () => {
    slowId = await upsertScripted(t, 'slow-reader', SLOW_SCRIPT);
  });

  it('requeues an abandoned run, the picker finishes it, and the fenced executor writes nothing more', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: slowId,
      prompt: 'Read it',
      subjectPageId: ids.pages.About,
    });
    await until(async () => (await runRow(t, run.id)).step_count >= 2, 10_000, 'the first REQUEST step');
    await abandon(t, run.id);

    await until(
      async () => String((await runRow(t, run.id)).claimed_by ?? '').startsWith('worker:'),
      10_000,
      'the picker to claim the requeued run',
    );
    expect(await runRow(t, run.id)).toMatchObject({ status: 'RUNNING', requeue_count: 1 });
    expect(await waitForRest(t, run.id, 20_000)).toBe('COMPLETED');

    const row = await runRow(t, run.id);
    expect(row).toMatchObject({
      termination_reason: 'COMPLETED',
      answer: 'Read and done.',
      requeue_count: 1,
      step_count: 8,
      checkpoint: null,
      lease_token: null,
      claimed_by: null,
    });
    const steps = await stepsOf(t, run.id);
    expect(steps.map((s) => s.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // The abandoned segment got as far as its first REQUEST; its LLM step (after the provider's
    // delay, once the run was taken over) was refused, so the new segment's steps follow at once.
    expect(steps.map((s) => s.kind)).toEqual([
      'CONTEXT',
      'REQUEST',
      'CONTEXT',
      'REQUEST',
      'LLM',
      'TOOL',
      'REQUEST',
      'LLM',
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await stepsOf(t, run.id)).toHaveLength(8);
  });

  it('fails an abandoned run whose write committed (effect applied) NOT_RETRYABLE and publishes it', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: slowId,
      prompt: 'Read it',
      subjectPageId: ids.pages.About,
    });
    const trace = collect<TraceEvent>(t.ws('admin'), RUN_EVENTS, { runId: run.id });
    await until(() => trace.events.filter((e) => e.runEvents.step).length >= 2, 10_000, 'two live steps');
    await abandon(t, run.id, { callId: 'call_1_1', toolName: 'pages_update', applied: true });

    expect(await waitForRest(t, run.id, 10_000)).toBe('FAILED');
    await trace.done;
    expect(trace.errors).toEqual([]);
    const terminal = trace.events.at(-1)!.runEvents;
    expect(terminal).toMatchObject({ kind: 'TERMINAL', outcome: 'ERROR' });
    expect(terminal.error).toMatch(/not repeated/);

    // The original executor is still waiting on its provider; once it wakes it is fenced out.
    await t.app.get(RunExecutor).settled(run.id);
    expect(await runRow(t, run.id)).toMatchObject({
      status: 'FAILED',
      termination_reason: 'NOT_RETRYABLE',
      requeue_count: 0,
      checkpoint: null,
      lease_token: null,
      step_count: 2,
    });
    expect((await stepsOf(t, run.id)).map((s) => s.kind)).toEqual(['CONTEXT', 'REQUEST']);
  });

  /** A run of a scripted call to `tool`, approved as alice; resolves once the call executes. */
  async function approvedCallOf(tool: string, gate: { entered: Promise<void> }): Promise<string> {
    const configurationId = await upsertScripted(t, `calls-${tool}`, {
      rounds: [{ toolCalls: [{ name: tool, arguments: { note: 'hello' } }] }, { text: 'Done.' }],
    });
    const run = await startRun(t, 'alice', { configurationId, prompt: 'Do it' });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    const turnDigest = await digestOf(t, run.id);
    expect(receiptOf(await decide(t, 'approve', 'alice', { runId: run.id, turnDigest })).path).toBe('INLINE');
    await gate.entered;
    return run.id;
  }

  it('fails a run cut off inside a call with an external effect NOT_RETRYABLE and never repeats the call', async () => {
    const { tool, gate } = gatedWrite('notify_external', 'external');
    t.app.get<ToolRegistry>(AGENT_TOOLS).register(tool);
    const id = await approvedCallOf('notify_external', gate);
    // the pending effect carries the tool's declaration
    expect((await runRow(t, id)).pending_effect).toEqual({
      callId: 'call_1_1',
      toolName: 'notify_external',
      effect: 'external',
    });
    const trace = collect<TraceEvent>(t.ws('admin'), RUN_EVENTS, { runId: id });
    await cutOff(t, id);

    expect(await waitForRest(t, id, 10_000)).toBe('FAILED');
    const message = REAP_MESSAGES.EFFECT_EXTERNAL.replace('%s', 'notify_external');
    await trace.done;
    expect(trace.events.at(-1)!.runEvents).toMatchObject({
      kind: 'TERMINAL',
      outcome: 'ERROR',
      error: message,
    });
    // the cut-off process wakes, is fenced out, and nobody executes the call again
    gate.release();
    await t.app.get(RunExecutor).settled(id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(gate.executions).toBe(1);
    expect(await runRow(t, id)).toMatchObject({
      status: 'FAILED',
      termination_reason: 'NOT_RETRYABLE',
      error_message: message,
      requeue_count: 0,
      checkpoint: null,
      lease_token: null,
      pending_effect: { callId: 'call_1_1', toolName: 'notify_external', effect: 'external' },
    });
    expect((await stepsOf(t, id)).map((s) => s.kind)).not.toContain('TOOL');
    const [decision] = await t.dataSource.query('SELECT outcome FROM decision WHERE run_id = $1', [id]);
    expect(decision).toEqual({ outcome: 'FAILED' });
  });

  // why: the call is held open inside its write's transaction (one unit with its completion);
  // the embedded database has one connection, which that transaction then holds, so neither the
  // reaper nor this test could reach the database until the call ends. On PostgreSQL only.
  itOnPostgres(
    'requeues a run cut off inside a transactional call that never committed, and carries the call out',
    async () => {
      const { tool, gate } = gatedWrite('record_in_run', 'transactional');
      t.app.get<ToolRegistry>(AGENT_TOOLS).register(tool);
      const id = await approvedCallOf('record_in_run', gate);
      // why: a transactional effect is recorded with its write's mark, in the write's transaction;
      // while the call is in flight (cut off below) nothing of it is committed.
      expect(await runRow(t, id)).toMatchObject({ status: 'RUNNING', pending_effect: null });
      await cutOff(t, id);

      // the reaper requeues it, the picker resumes the approved call from the checkpoint
      expect(await waitForRest(t, id, 20_000)).toBe('COMPLETED');
      gate.release();
      await t.app.get(RunExecutor).settled(id);
      expect(gate.executions).toBe(2);
      expect(await runRow(t, id)).toMatchObject({
        termination_reason: 'COMPLETED',
        requeue_count: 1,
        pending_effect: null,
        lease_token: null,
      });
      expect((await stepsOf(t, id)).filter((s) => s.kind === 'TOOL')).toHaveLength(1);
    },
  );

  it('picks up queued runs at most WORKER_CONCURRENCY at once and completes them all', async () => {
    const quick = await upsertScripted(t, 'quick-answer', { rounds: [{ delayMs: 400, text: 'Done.' }] });
    const queued = await enqueue(t, quick, ids.users.alice!, 5);
    t.app.get(QueuedRunPicker).wake();
    let most = 0;
    await until(
      async () => {
        const [counts] = await t.dataSource.query(
          `SELECT count(*) FILTER (WHERE status = 'RUNNING') AS running,
                  count(*) FILTER (WHERE status = 'COMPLETED') AS completed
             FROM run WHERE id = ANY($1::uuid[])`,
          [queued],
        );
        most = Math.max(most, Number(counts.running));
        return Number(counts.completed) === queued.length;
      },
      20_000,
      'all queued runs to complete',
    );
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    for (const id of queued) {
      const row = await runRow(t, id);
      expect(row).toMatchObject({ status: 'COMPLETED', answer: 'Done.', requeue_count: 0, step_count: 3 });
      expect(row.started_at).not.toBeNull();
    }
  });
});

describe('with WORKER_ENABLED=false', () => {
  const { t } = useTestApp({ WORKER_ENABLED: 'false', REAPER_INTERVAL_SECONDS: '1' });

  it('neither picks up queued runs nor reaps expired leases', async () => {
    const ids = await demoIds(t);
    const [queued] = await enqueue(t, ids.configurations['demo-editor']!, ids.users.alice!, 1);
    const running = randomUUID();
    await t.app.get(RunsRepository).insertRunning(
      {
        id: running,
        configurationId: Number(ids.configurations['demo-editor']),
        ownerId: Number(ids.users.alice),
        workspaceId: 0,
        subjectPageId: null,
        subjectLanguageId: null,
        maxIterations: 5,
        checkpoint: t.app.get(StateVault).seal(running, { v: 1, kind: 'start', prompt: 'x' }),
      },
      { runId: running, token: randomUUID(), claimedBy: 'api:elsewhere:1' },
      -5,
    );
    t.app.get(QueuedRunPicker).wake();
    await new Promise((r) => setTimeout(r, 2500));
    expect((await runRow(t, queued!)).status).toBe('QUEUED');
    expect(await runRow(t, running)).toMatchObject({
      status: 'RUNNING',
      requeue_count: 0,
      claimed_by: 'api:elsewhere:1',
    });
  });
});
