// Found by the soak (bench/soak): a decision's record must follow its run whichever process
// stops or cuts off the continuation. A process killed between two commits is simulated by
// making the second write fail once (a trigger that raises on its first call only).
import { RecordedDecisions } from '../../src/modules/approvals';
import { QueuedRunPicker, ReaperService } from '../../src/modules/worker';
import { useTestApp } from '../support/suite';
import { startRun, waitForRest } from '../support/runs';
import type { Decision, HandBack, Run } from '../support/generated/schema';

const DIGEST = `query($id: ID!) { run(id: $id) { pending { turnDigest } } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
const CANCEL = `mutation($id: ID!) { cancelRun(runId: $id) { status } }`;
const RUN = `query($id: ID!) { run(id: $id) { status handBack { code } decisions { kind path outcome } } }`;

type RunView = Pick<Run, 'status'> & {
  handBack: Pick<HandBack, 'code'> | null;
  decisions: Array<Pick<Decision, 'kind' | 'path' | 'outcome'>>;
};

describe('decision records after a continuation is cut off', () => {
  const { t, ids } = useTestApp({ DECISION_PATH: 'durable', WORKER_ENABLED: 'false' });

  const view = async (runId: string): Promise<RunView> =>
    (await t.gql<{ run: RunView }>(RUN, { id: runId })).data!.run;
  const setDemoEditorActive = (active: boolean) =>
    t.dataSource.query(`UPDATE configuration SET is_active = $1 WHERE identifier = 'demo-editor'`, [active]);
  const pretendLiveWorker = () =>
    t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-worker', 'worker:test')
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );
  const steps = async (runId: string, kind: string): Promise<number> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM run_step WHERE run_id = $1 AND kind = $2`,
      [runId, kind],
    );
    return rows[0]!.n;
  };
  const decisionRow = async (runId: string) => {
    const rows: Array<{ handed_back_code: string | null; outcome: string | null }> = await t.dataSource.query(
      `SELECT handed_back_code, outcome FROM decision WHERE run_id = $1`,
      [runId],
    );
    return rows[0]!;
  };
  const runRow = async (runId: string) => {
    const rows: Array<{ status: string; hand_back: unknown }> = await t.dataSource.query(
      `SELECT status, hand_back FROM run WHERE id = $1`,
      [runId],
    );
    return rows[0]!;
  };

  /** Makes the first UPDATE of this run's decision that matches `when` fail (later ones pass). */
  async function failOnce(name: string, runId: string, when: string): Promise<() => Promise<void>> {
    await t.dataSource.query(`CREATE SEQUENCE ${name}_seq`);
    await t.dataSource.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.run_id = '${runId}' AND (${when}) AND nextval('${name}_seq') = 1 THEN
          RAISE EXCEPTION 'injected fault (${name})';
        END IF;
        RETURN NEW;
      END $$`);
    await t.dataSource.query(
      `CREATE TRIGGER ${name} BEFORE UPDATE ON decision FOR EACH ROW EXECUTE FUNCTION ${name}()`,
    );
    return async () => {
      await t.dataSource.query(`DROP TRIGGER ${name} ON decision`);
      await t.dataSource.query(`DROP FUNCTION ${name}()`);
      await t.dataSource.query(`DROP SEQUENCE ${name}_seq`);
    };
  }

  /** A demo-editor run waiting for approval (started inline: no live worker). */
  async function waitingRun(page: string): Promise<{ id: string; digest: string }> {
    await t.dataSource.query('DELETE FROM worker_heartbeat');
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO',
      subjectPageId: ids.pages[page],
    });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    const res = await t.gql<{ run: { pending: { turnDigest: string } } }>(DIGEST, { id: run.id }, 'alice');
    return { id: run.id, digest: res.data!.run.pending.turnDigest };
  }

  /** A recorded (DURABLE) approval by carol. */
  async function recordedApproval(page: string): Promise<{ id: string; digest: string }> {
    const run = await waitingRun(page);
    await pretendLiveWorker();
    const res = await t.gql<{ approveRun: { path: string } }>(
      APPROVE,
      { input: { runId: run.id, turnDigest: run.digest } },
      'carol',
    );
    expect(res.data!.approveRun.path).toBe('DURABLE');
    return run;
  }

  /** What a worker's claim leaves (DECISION_RECORDED -> RUNNING under its lease). */
  const claimElsewhere = (runId: string, leaseSql: string) =>
    t.dataSource.query(
      `UPDATE run SET status = 'RUNNING', claimed_by = 'worker:elsewhere', lease_token = gen_random_uuid(),
              lease_expires_at = ${leaseSql} WHERE id = $1 AND status = 'DECISION_RECORDED'`,
      [runId],
    );

  it('records CANCELLED as the outcome of a decision whose continuation a cancel cut short in another process', async () => {
    const run = await recordedApproval('Widget');
    await claimElsewhere(run.id, `now() + interval '60 seconds'`);
    const cancelled = await t.gql<{ cancelRun: { status: string } }>(CANCEL, { id: run.id }, 'alice');
    expect(cancelled.data!.cancelRun.status).toBe('CANCELLED');
    expect((await view(run.id)).decisions).toEqual([
      { kind: 'APPROVE', path: 'DURABLE', outcome: 'CANCELLED' },
    ]);
  });

  it("writes a continuation's end and its decision's outcome together", async () => {
    const run = await waitingRun('About');
    const cleanUp = await failOnce(
      'outcome_fault',
      run.id,
      'NEW.outcome IS NOT NULL AND OLD.outcome IS NULL',
    );
    try {
      const res = await t.gql<{ approveRun: { path: string } }>(
        APPROVE,
        { input: { runId: run.id, turnDigest: run.digest } },
        'carol',
      );
      expect(res.data!.approveRun.path).toBe('INLINE');
      const status = await waitForRest(t, run.id);
      // why: the settle and the outcome commit together or not at all; the outcome write that
      // failed took the settle with it, and the run ended in a state its decision records.
      await new Promise((r) => setTimeout(r, 200));
      const decisions = (await view(run.id)).decisions;
      expect(decisions).toHaveLength(1);
      expect(decisions[0]!.outcome).toBe(status);
    } finally {
      await cleanUp();
    }
  });

  it('hands a decision back together with its run, or not at all', async () => {
    const run = await recordedApproval('Blog');
    const cleanUp = await failOnce('handback_fault', run.id, 'NEW.handed_back_code IS NOT NULL');
    await setDemoEditorActive(false);
    try {
      expect(await t.app.get(RecordedDecisions).pickUp('worker:test', 5)).toHaveLength(1);
      // the hand-back failed half-way: neither the run nor its decision changed
      expect(await runRow(run.id)).toMatchObject({ status: 'RUNNING', hand_back: null });
      expect(await decisionRow(run.id)).toEqual({ handed_back_code: null, outcome: null });
      // its lease runs out; the reaper requeues it and the next pickup hands it back whole
      await t.dataSource.query(
        `UPDATE run SET lease_expires_at = now() - interval '1 second' WHERE id = $1`,
        [run.id],
      );
      expect((await t.app.get(ReaperService).reapOnce()).map((r) => [r.id, r.status])).toEqual([
        [run.id, 'QUEUED'],
      ]);
      await t.app.get(QueuedRunPicker).pickOnce();
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    } finally {
      await setDemoEditorActive(true);
      await cleanUp();
    }
    expect(await decisionRow(run.id)).toEqual({ handed_back_code: 'CONFIGURATION_INACTIVE', outcome: null });
    expect((await view(run.id)).handBack).toEqual({ code: 'CONFIGURATION_INACTIVE' });
    expect(await steps(run.id, 'APPROVAL')).toBe(0);
    // the turn is open again: a new decision (inline now) carries it out
    await t.dataSource.query('DELETE FROM worker_heartbeat');
    const again = await t.gql<{ approveRun: { path: string } }>(
      APPROVE,
      { input: { runId: run.id, turnDigest: run.digest } },
      'carol',
    );
    expect(again.data!.approveRun.path).toBe('INLINE');
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    expect(await steps(run.id, 'TOOL_WRITE')).toBe(1);
  });

  it('checks a recorded decision whose worker was cut off before checking it, when it is picked up again', async () => {
    const run = await recordedApproval('Launch');
    // a worker claimed it and died before checks 12-14; its lease has run out
    await claimElsewhere(run.id, `now() - interval '1 second'`);
    await setDemoEditorActive(false);
    try {
      expect((await t.app.get(ReaperService).reapOnce()).map((r) => [r.id, r.status])).toEqual([
        [run.id, 'QUEUED'],
      ]);
      await t.app.get(QueuedRunPicker).pickOnce();
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    } finally {
      await setDemoEditorActive(true);
    }
    expect((await view(run.id)).handBack).toEqual({ code: 'CONFIGURATION_INACTIVE' });
    expect(await decisionRow(run.id)).toEqual({ handed_back_code: 'CONFIGURATION_INACTIVE', outcome: null });
    expect(await steps(run.id, 'APPROVAL')).toBe(0);
    expect(await steps(run.id, 'TOOL_WRITE')).toBe(0);
  });
});
