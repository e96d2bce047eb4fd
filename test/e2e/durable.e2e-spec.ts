import { RecordedDecisions } from '../../src/modules/approvals';
import type { TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { collect, startRun, waitForRest, type DemoIds } from '../support/runs';
import { StatementLog } from '../support/statement-log';

const DIGEST = `query($id: ID!) { run(id: $id) { pending { turnDigest } } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) {
  path decision { id kind path } run { id status } } }`;
const RUN = `query($id: ID!) { run(id: $id) { status handBack { code at } decisions { path outcome } } }`;
const PROGRESS = `subscription($id: ID!) { runProgress(runId: $id) { kind status stepCount turn } }`;

/** A run waiting for approval, started while no worker is live (so it ran inline). */
async function waitingRun(t: TestApp, ids: DemoIds, page: string, owner = 'alice', subjectLanguageId = 0) {
  await t.dataSource.query('DELETE FROM worker_heartbeat');
  const run = await startRun(t, owner, {
    configurationId: ids.configurations['demo-editor'],
    prompt: 'SEO',
    subjectPageId: ids.pages[page],
    subjectLanguageId,
  });
  expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
  const res = await t.gql<{ run: { pending: { turnDigest: string } } }>(DIGEST, { id: run.id }, owner);
  return { id: run.id, digest: res.data!.run.pending.turnDigest };
}

async function counts(t: TestApp, runId: string) {
  const [row] = await t.dataSource.query(
    `SELECT r.status, r.step_count, (SELECT count(*)::int FROM decision d WHERE d.run_id = r.id AND d.handed_back_code IS NULL) AS decisions
       FROM run r WHERE r.id = $1`,
    [runId],
  );
  return row as { status: string; step_count: number; decisions: number };
}

describe('the durable path', () => {
  describe('with no picker running (a worker that is live but has not picked up yet)', () => {
    const { t, ids } = useTestApp({ DECISION_PATH: 'durable', WORKER_ENABLED: 'false' });
    const pretendLiveWorker = () =>
      t.dataSource.query(
        `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-worker', 'worker:test') ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
      );

    it('takes a DURABLE request inline when no worker is live, and says so', async () => {
      const run = await waitingRun(t, ids, 'About');
      const res = await t.gql<{ approveRun: any }>(APPROVE, {
        input: { runId: run.id, turnDigest: run.digest, path: 'DURABLE' },
      });
      expect(res.data!.approveRun.path).toBe('INLINE');
      expect(res.data!.approveRun.run.status).toBe('RUNNING');
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    });

    it('records the decision, then carries it out on pickup', async () => {
      const run = await waitingRun(t, ids, 'Widget');
      await pretendLiveWorker();
      const res = await t.gql<{ approveRun: any }>(APPROVE, {
        input: { runId: run.id, turnDigest: run.digest },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.approveRun).toMatchObject({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
      expect(res.data!.approveRun.decision.path).toBe('DURABLE');
      const recorded = await counts(t, run.id);
      expect(recorded).toMatchObject({ status: 'DECISION_RECORDED', decisions: 1 });
      expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      const writes: Array<{ n: number }> = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM run_step WHERE run_id = $1 AND kind = 'TOOL_WRITE'`,
        [run.id],
      );
      expect(writes[0]!.n).toBe(1);
      const view = await t.gql<{ run: any }>(RUN, { id: run.id });
      expect(view.data!.run.decisions).toEqual([{ path: 'DURABLE', outcome: 'COMPLETED' }]);
    });

    it('hands back CONFIGURATION_INACTIVE when the configuration was deactivated before pickup', async () => {
      const run = await waitingRun(t, ids, 'Launch');
      await pretendLiveWorker();
      const before = await counts(t, run.id);
      const [page] = await t.dataSource.query(
        `SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`,
        [ids.pages.Launch],
      );
      const res = await t.gql<{ approveRun: any }>(APPROVE, {
        input: { runId: run.id, turnDigest: run.digest },
      });
      expect(res.data!.approveRun.path).toBe('DURABLE');
      const progress = collect<{ runProgress: { kind: string; status: string } }>(t.ws('alice'), PROGRESS, {
        id: run.id,
      });
      await new Promise((r) => setTimeout(r, 200));
      await t.dataSource.query(`UPDATE configuration SET is_active = false WHERE identifier = 'demo-editor'`);
      try {
        expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
      } finally {
        await t.dataSource.query(
          `UPDATE configuration SET is_active = true WHERE identifier = 'demo-editor'`,
        );
      }
      await progress.done;
      const last = progress.events[progress.events.length - 1]!.runProgress;
      expect(last).toMatchObject({ kind: 'SETTLED', status: 'WAITING_FOR_APPROVAL' });
      const after = await counts(t, run.id);
      expect(after).toEqual({ ...before, decisions: 0 });
      const [pageAfter] = await t.dataSource.query(
        `SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`,
        [ids.pages.Launch],
      );
      expect(pageAfter).toEqual(page);
      const view = await t.gql<{ run: any }>(RUN, { id: run.id });
      expect(view.data!.run.handBack.code).toBe('CONFIGURATION_INACTIVE');
      // the turn is open again: a new decision (inline now) goes through
      await t.dataSource.query('DELETE FROM worker_heartbeat');
      const again = await t.gql<{ approveRun: any }>(APPROVE, {
        input: { runId: run.id, turnDigest: run.digest },
      });
      expect(again.data!.approveRun.path).toBe('INLINE');
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    });

    it('records the decision steps of every run one pickup took in one statement, then carries each out', async () => {
      const runs = [];
      for (const page of ['About', 'Products', 'Widget']) runs.push(await waitingRun(t, ids, page));
      await pretendLiveWorker();
      for (const run of runs) {
        const res = await t.gql<{ approveRun: any }>(APPROVE, {
          input: { runId: run.id, turnDigest: run.digest },
        });
        expect(res.data?.approveRun.path).toBe('DURABLE');
      }
      const before = await Promise.all(runs.map((r) => counts(t, r.id)));
      const log = StatementLog.open();
      try {
        expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(3);
      } finally {
        log.close();
      }
      // why: counted by what they insert (a step's kind is a parameter): the continuations the
      // pickup launched may have sent their first steps before it returned.
      const approvalWrites = log.statements
        .filter((s) => /INSERT INTO run_step/.test(s.text))
        .map((s) => s.values.flat().filter((v) => v === 'APPROVAL').length)
        .filter((n) => n > 0);
      expect(approvalWrites).toEqual([3]);
      // why: the checks and the continuations need the configurations' settings; skills travel in
      // each run's checkpoint.
      expect(log.statements.filter((s) => /\bFROM skill\b/.test(s.text))).toEqual([]);
      for (const run of runs) expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      const approvals: Array<{ run_id: string; sequence: number }> = await t.dataSource.query(
        `SELECT run_id, sequence FROM run_step WHERE run_id = ANY($1::uuid[]) AND kind = 'APPROVAL'`,
        [runs.map((r) => r.id)],
      );
      expect(new Map(approvals.map((a) => [a.run_id, a.sequence]))).toEqual(
        new Map(runs.map((r, i) => [r.id, before[i]!.step_count + 1])),
      );
    });

    it('judges every run of one pickup by its own decision: one carried out, one handed back', async () => {
      // why: one pickup reads the decisions, deciders and pages of all the runs it took at once;
      // each run must still meet its own decider. Bob may approve but not write French.
      const permitted = await waitingRun(t, ids, 'About');
      const gated = await waitingRun(t, ids, 'Widget', 'admin', 2);
      await pretendLiveWorker();
      const gatedBefore = await counts(t, gated.id);
      const byAdmin = await t.gql<{ approveRun: any }>(APPROVE, {
        input: { runId: permitted.id, turnDigest: permitted.digest },
      });
      const byBob = await t.gql<{ approveRun: any }>(
        APPROVE,
        { input: { runId: gated.id, turnDigest: gated.digest } },
        'bob',
      );
      expect([byAdmin.data?.approveRun.path, byBob.data?.approveRun.path]).toEqual(['DURABLE', 'DURABLE']);
      expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(2);
      expect(await waitForRest(t, permitted.id)).toBe('COMPLETED');
      expect(await waitForRest(t, gated.id)).toBe('WAITING_FOR_APPROVAL');
      const writes: Array<{ run_id: string; n: number }> = await t.dataSource.query(
        `SELECT run_id, count(*)::int AS n FROM run_step WHERE run_id = ANY($1::uuid[]) AND kind = 'TOOL_WRITE'
          GROUP BY run_id`,
        [[permitted.id, gated.id]],
      );
      expect(writes).toEqual([{ run_id: permitted.id, n: 1 }]);
      expect(await counts(t, gated.id)).toEqual({ ...gatedBefore, decisions: 0 });
      const views = await Promise.all([permitted.id, gated.id].map((id) => t.gql<{ run: any }>(RUN, { id })));
      expect(views.map((v) => v.data!.run.handBack?.code ?? null)).toEqual([null, 'APPROVER_NOT_PERMITTED']);
      expect(views[0]!.data!.run.decisions).toEqual([{ path: 'DURABLE', outcome: 'COMPLETED' }]);
    });
  });
});
