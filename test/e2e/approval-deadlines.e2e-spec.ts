import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { ApprovalExpiry } from '../../src/modules/approvals';
import { createApp } from '../../src/bootstrap';
import {
  decide,
  effects,
  expectRefusedUnchanged,
  receiptOf,
  sleep,
  upsertConfiguration,
} from '../support/decisions';
import { demoIds, startRun, until, waitForRest } from '../support/runs';
import { itOnPostgres } from '../support/test-database';
import { bootTestApp, errorCode, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

const PENDING = `query($id: ID!) { run(id: $id) { status pending { turnDigest expiresAt approvalsRequired }
  decisions { kind decidedBy { username } path outcome } } }`;

interface RunView {
  status: string;
  pending: { turnDigest: string; expiresAt: string | null; approvalsRequired: number } | null;
  decisions: Array<{
    kind: string;
    decidedBy: { username: string } | null;
    path: string;
    outcome: string | null;
  }>;
}

/** A scripted editor: one page write to approve, then an answer. */
async function editor(t: TestApp, identifier: string, extra: Record<string, unknown>): Promise<string> {
  return upsertConfiguration(t, {
    identifier,
    privacyLevel: 'FULL',
    providerOptions: {
      rounds: [
        { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: `${identifier} title` } }] },
        { text: 'Understood.' },
      ],
    },
    ...extra,
  });
}

async function view(t: TestApp, runId: string): Promise<RunView> {
  const res = await t.gql<{ run: RunView }>(PENDING, { id: runId });
  if (!res.data?.run) throw new Error(JSON.stringify(res.errors));
  return res.data.run;
}

async function waiting(
  t: TestApp,
  configurationId: string,
  pageId: string,
  workspaceId = 0,
): Promise<string> {
  const run = await startRun(t, 'alice', {
    configurationId,
    prompt: 'SEO',
    subjectPageId: pageId,
    workspaceId,
  });
  const status = await waitForRest(t, run.id);
  if (status !== 'WAITING_FOR_APPROVAL') {
    const [row] = await t.dataSource.query('SELECT error_message FROM run WHERE id = $1', [run.id]);
    throw new Error(`run ${run.id} rests in ${status}: ${row.error_message}`);
  }
  return run.id;
}

/** Waits until the run no longer waits and rests (the expiry settled it, or its continuation ended). */
async function settledAfterExpiry(t: TestApp, runId: string): Promise<string> {
  await until(
    async () => {
      const [row] = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [runId]);
      return row.status !== 'WAITING_FOR_APPROVAL';
    },
    20_000,
    'the expiry',
  );
  return waitForRest(t, runId, 20_000);
}

/** A query on the test database while no app holds it open. */
async function sqlOn<T>(url: string, sql: string, params: unknown[]): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

type DecisionRow = { kind: string; decided_by: number | null; path: string; outcome: string | null };

async function decisionRows(t: TestApp, runId: string): Promise<DecisionRow[]> {
  return t.dataSource.query<DecisionRow[]>(
    'SELECT kind, decided_by, path, outcome FROM decision WHERE run_id = $1 ORDER BY decided_at',
    [runId],
  );
}

type StepRow = { kind: string; payload: Record<string, unknown> };

async function approvalSteps(t: TestApp, runId: string): Promise<StepRow[]> {
  return t.dataSource.query<StepRow[]>(
    `SELECT kind, payload FROM run_step WHERE run_id = $1 AND kind IN ('APPROVAL', 'TOOL_WRITE') ORDER BY sequence`,
    [runId],
  );
}

describe('approval deadlines: the sweep settles overdue waits', () => {
  const { t, ids } = useTestApp({ APPROVAL_EXPIRY_INTERVAL_SECONDS: '1' });

  it('a configuration without a timeout sets no deadline', async () => {
    const config = await editor(t, 'no-deadline', {});
    const runId = await waiting(t, config, ids.pages.About!);
    expect((await view(t, runId)).pending).toMatchObject({ expiresAt: null, approvalsRequired: 1 });
  });

  it('DENY: the run continues as denied (EXPIRED), with an EXPIRE record nobody decided', async () => {
    const config = await editor(t, 'deadline-deny', { approvalTimeoutSeconds: 1, onApprovalTimeout: 'DENY' });
    const runId = await waiting(t, config, ids.pages.Widget!, 11);
    const pending = (await view(t, runId)).pending!;
    expect(pending.expiresAt).not.toBeNull();
    expect(await settledAfterExpiry(t, runId)).toBe('COMPLETED');
    expect(await decisionRows(t, runId)).toEqual([
      { kind: 'EXPIRE', decided_by: null, path: 'INLINE', outcome: 'COMPLETED' },
    ]);
    const steps = await approvalSteps(t, runId);
    expect(steps.map((s) => [s.kind, s.payload.approved, s.payload.reason])).toEqual([
      ['APPROVAL', false, 'EXPIRED'],
    ]);
    expect((await view(t, runId)).decisions).toEqual([
      { kind: 'EXPIRE', decidedBy: null, path: 'INLINE', outcome: 'COMPLETED' },
    ]);
  });

  it('FAIL: the run fails through the settler, the EXPIRE record says FAILED', async () => {
    const config = await editor(t, 'deadline-fail', { approvalTimeoutSeconds: 1, onApprovalTimeout: 'FAIL' });
    const runId = await waiting(t, config, ids.pages.Launch!, 12);
    expect(await settledAfterExpiry(t, runId)).toBe('FAILED');
    const after = await effects(t, runId);
    expect({
      reason: after.terminationReason,
      kinds: after.kinds.filter((k) => k === 'APPROVAL' || k === 'TOOL_WRITE'),
    }).toEqual({
      reason: 'APPROVAL_DENIED',
      kinds: [],
    });
    expect(await decisionRows(t, runId)).toEqual([
      { kind: 'EXPIRE', decided_by: null, path: 'INLINE', outcome: 'FAILED' },
    ]);
  });
});

describe('approval deadlines on the durable path', () => {
  // why: this instance runs a worker (a live heartbeat), so the expiry records its denial
  // for the workers, as a decision without a requested path would be.
  const { t, ids } = useTestApp({ APPROVAL_EXPIRY_INTERVAL_SECONDS: '1', DECISION_PATH: 'durable' });

  it('DENY is recorded for a worker, which carries it out', async () => {
    const config = await editor(t, 'deadline-durable', { approvalTimeoutSeconds: 1 });
    const runId = await waiting(t, config, ids.pages.Widget!, 21);
    expect(await settledAfterExpiry(t, runId)).toBe('COMPLETED');
    expect(await decisionRows(t, runId)).toEqual([
      { kind: 'EXPIRE', decided_by: null, path: 'DURABLE', outcome: 'COMPLETED' },
    ]);
    expect((await approvalSteps(t, runId)).map((s) => s.payload.reason)).toEqual(['EXPIRED']);
  });
});

describe('approval deadlines without a sweep, and across a restart', () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  beforeAll(async () => {
    // why: the sweep runs once at start and then not for an hour: the deadlines below pass
    // with no sweep in between.
    t = await bootTestApp({ APPROVAL_EXPIRY_INTERVAL_SECONDS: '3600' });
    ids = await demoIds(t);
  });
  afterAll(async () => {
    await t.app.close().catch(() => undefined);
    await t.db.dispose();
  });

  itOnPostgres(
    'a decision after the deadline is refused APPROVAL_EXPIRED before any sweep, nothing written',
    async () => {
      const config = await editor(t, 'deadline-unswept', { approvalTimeoutSeconds: 1 });
      const runId = await waiting(t, config, ids.pages.About!, 31);
      const digest = (await view(t, runId)).pending!.turnDigest;
      await sleep(1500);
      const before = await effects(t, runId);
      for (const kind of ['approve', 'deny'] as const) {
        const res = await decide(t, kind, 'bob', { runId, turnDigest: digest });
        await expectRefusedUnchanged(t, res, 'APPROVAL_EXPIRED', runId, before);
      }
      // the order (docs/decisions.md, 6a): after access (checks 1, 2), before the configuration (5, 6)
      const hidden = await decide(t, 'approve', 'dave', { runId, turnDigest: digest });
      await expectRefusedUnchanged(t, hidden, 'NOT_FOUND', runId, before);
      await editor(t, 'deadline-unswept', { approvalTimeoutSeconds: 1, isActive: false });
      const inactive = await decide(t, 'approve', 'bob', { runId, turnDigest: digest });
      await expectRefusedUnchanged(t, inactive, 'APPROVAL_EXPIRED', runId, before);
      expect(await decisionRows(t, runId)).toEqual([]);
    },
  );

  itOnPostgres(
    'a decision racing the expiry: exactly one wins, one decision row per run',
    async () => {
      const config = await editor(t, 'deadline-race', { approvalTimeoutSeconds: 1 });
      const runIds: string[] = [];
      for (let i = 0; i < 8; i++) runIds.push(await waiting(t, config, ids.pages.Widget!, 40 + i));
      const digests = await Promise.all(runIds.map(async (id) => (await view(t, id)).pending!.turnDigest));
      const expiry = t.app.get(ApprovalExpiry);
      // why: around the deadline: approvals go out while sweeps run, so either may come first.
      await sleep(900);
      const results = await Promise.all([
        ...runIds.map((runId, i) => decide(t, 'approve', 'bob', { runId, turnDigest: digests[i] })),
        ...Array.from({ length: 6 }, async (_, i) => {
          await sleep(i * 60);
          return expiry.sweepOnce(100);
        }),
      ]);
      await sleep(1200);
      await expiry.sweepOnce(100);
      const decisions = results.slice(0, runIds.length) as Array<Awaited<ReturnType<typeof decide>>>;
      for (const [i, runId] of runIds.entries()) {
        expect(await waitForRest(t, runId, 20_000)).toBe('COMPLETED');
        const rows = await decisionRows(t, runId);
        const res = decisions[i]!;
        const expected = res.errors ? 'EXPIRE' : 'APPROVE';
        if (res.errors) expect(['APPROVAL_EXPIRED', 'ALREADY_RESUMING']).toContain(errorCode(res));
        else expect(receiptOf(res).decision.kind).toBe('APPROVE');
        expect({ runId, kinds: rows.map((r) => r.kind) }).toEqual({ runId, kinds: [expected] });
        const writes = (await approvalSteps(t, runId)).filter((s) => s.kind === 'TOOL_WRITE').length;
        expect({ runId, writes }).toEqual({ runId, writes: expected === 'APPROVE' ? 1 : 0 });
      }
    },
    60_000,
  );

  itOnPostgres(
    'a deadline that passed while no instance ran is settled by the next instance to start',
    async () => {
      const config = await editor(t, 'deadline-restart', {
        approvalTimeoutSeconds: 1,
        onApprovalTimeout: 'FAIL',
      });
      const runId = await waiting(t, config, ids.pages.Launch!, 51);
      await t.app.close();
      await sleep(1500);
      const [still] = await sqlOn<{ status: string }>(t.db.url!, 'SELECT status FROM run WHERE id = $1', [
        runId,
      ]);
      expect(still!.status).toBe('WAITING_FOR_APPROVAL');
      let next: INestApplication | null = null;
      try {
        next = await createApp(t.config, t.db.target);
        await next.init();
        await until(
          async () => {
            const [row] = await sqlOn<{ status: string }>(t.db.url!, 'SELECT status FROM run WHERE id = $1', [
              runId,
            ]);
            return row!.status === 'FAILED';
          },
          20_000,
          'the new instance to settle the run',
        );
        const rows = await sqlOn<{ kind: string; decided_by: number | null; outcome: string }>(
          t.db.url!,
          'SELECT kind, decided_by, outcome FROM decision WHERE run_id = $1',
          [runId],
        );
        expect(rows).toEqual([{ kind: 'EXPIRE', decided_by: null, outcome: 'FAILED' }]);
      } finally {
        await next?.close();
      }
    },
    60_000,
  );
});
