import { decide, digestOf, pendingOf, receiptOf, startResting } from '../support/decisions';
import { RunExecutor } from '../../src/modules/runs';
import { demoIds, waitForRest } from '../support/runs';
import { StatementLog, type LoggedStatement } from '../support/statement-log';
import { bootTestApp, TestApp } from '../support/test-app';
import { itOnPostgres } from '../support/test-database';

/** The first words of a statement, enough to tell which write or read it is. */
const shape = (s: LoggedStatement): string =>
  s.text
    .replace(/^WITH \w+ AS \( /, 'WITH ')
    .split(' ')
    .slice(0, 3)
    .join(' ');

/**
 * What an inline decision writes (docs/decisions.md, "The checks, in order"): ONE statement, in
 * no transaction: the claim, the decision's step and the decision record (the approvals module's
 * rider). The decider gate's pages are read before it, beside the configuration.
 */
describe('decisions: the claim statement', () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A demo-editor run waiting to write a new SEO title on the page, in the workspace. */
  const waiting = (page = 'Products', workspaceId = 0) =>
    startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
      workspaceId,
    });

  /** Decides the run with statements logged; the claim's statement and what came before it. */
  async function logged(runId: string, kind: 'approve' | 'deny') {
    const digest = await digestOf(t, runId);
    const log = StatementLog.open();
    let res;
    try {
      res = await decide(t, kind, 'carol', { runId, turnDigest: digest });
    } finally {
      log.close();
    }
    expect(receiptOf(res).path).toBe('INLINE');
    const claims = log.statements.filter((s) =>
      /^WITH claimed AS \( UPDATE run SET status = 'RUNNING'/.test(s.text),
    );
    expect(claims).toHaveLength(1);
    const claim = claims[0]!;
    // why: nothing else writes for the decision: the step and the record ride in the claim.
    expect(log.transactions().filter((tx) => tx.includes(claim))).toEqual([]);
    expect(log.statements.filter((s) => /^INSERT INTO (decision|run_step)/.test(s.text))).toEqual([]);
    const before = log.statements.slice(0, log.statements.indexOf(claim));
    expect(before.filter((s) => /^START TRANSACTION/.test(s.text))).toEqual([]);
    return { claim: claim.text, before: before.map((s) => s.text) };
  }

  /** The decision's row, and its step, as the claim stored them. */
  async function stored(runId: string) {
    return t.dataSource.query(
      `SELECT d.kind, d.outcome IS NULL AS open, s.kind AS step FROM decision d
         JOIN run_step s ON s.run_id = d.run_id AND s.kind IN ('APPROVAL')
        WHERE d.run_id = $1`,
      [runId],
    );
  }

  it('an approval: the gate reads its pages before the claim; the claim stores its step and the record', async () => {
    const runId = await waiting();
    const { claim, before } = await logged(runId, 'approve');
    expect(claim).toMatch(/INSERT INTO run_step[\s\S]*INSERT INTO decision[\s\S]*FROM claimed/);
    expect(before.filter((s) => /FROM page p\b/.test(s))).toHaveLength(1);
    // why: a run's skills travel in its checkpoint; a decision reads only the configuration's settings.
    expect(before.filter((s) => /\bFROM configuration\b/.test(s))).toHaveLength(1);
    expect(before.filter((s) => /\bFROM skill\b/.test(s))).toEqual([]);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    expect(await stored(runId)).toEqual([{ kind: 'APPROVE', open: false, step: 'APPROVAL' }]);
    const steps = await t.dataSource.query(
      `SELECT count(*) FILTER (WHERE kind = 'APPROVAL')::int AS approvals,
              count(*) FILTER (WHERE kind = 'TOOL_WRITE')::int AS writes
         FROM run_step WHERE run_id = $1`,
      [runId],
    );
    expect(steps).toEqual([{ approvals: 1, writes: 1 }]);
  });

  it('a denial reads no page at all: it executes nothing, so it meets no gate', async () => {
    const runId = await waiting();
    const { claim, before } = await logged(runId, 'deny');
    expect(claim).toMatch(/INSERT INTO decision/);
    expect(before.filter((s) => /FROM page\b/.test(s))).toEqual([]);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const [decision] = await t.dataSource.query('SELECT kind FROM decision WHERE run_id = $1', [runId]);
    expect(decision).toEqual({ kind: 'DENY' });
  });

  it('a durable decision is one statement too: the record rides in WAITING -> DECISION_RECORDED', async () => {
    const runId = await waiting('Blog');
    const digest = await digestOf(t, runId);
    // why: a durable request is taken durably only while a worker is live; this one never picks up.
    await t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('statements-worker', 'worker:test')
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );
    const log = StatementLog.open();
    let res;
    try {
      res = await decide(t, 'approve', 'carol', { runId, turnDigest: digest, path: 'DURABLE' });
    } finally {
      log.close();
      await t.dataSource.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'statements-worker'`);
    }
    const receipt = receiptOf(res);
    expect(receipt.path).toBe('DURABLE');
    const records = log.statements.filter((s) =>
      /^WITH claimed AS \( UPDATE run SET status = 'DECISION_RECORDED'/.test(s.text),
    );
    expect(records).toHaveLength(1);
    expect(records[0]!.text).toMatch(/INSERT INTO decision[\s\S]*FROM claimed/);
    expect(log.transactions().filter((tx) => tx.includes(records[0]!))).toEqual([]);
    const [row] = await t.dataSource.query(
      `SELECT d.id, d.decided_at = r.recorded_at AS same_time FROM run r JOIN decision d ON d.run_id = r.id
        WHERE r.id = $1`,
      [runId],
    );
    expect(row).toEqual({ id: receipt.decision.id, same_time: true });
    // the test app's worker carries it out
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    await t.app.get(RunExecutor).settled(runId);
  });

  it('the approved write commits in one transaction with its steps and the cleared effect, announced by no statement of its own', async () => {
    const runId = await waiting('About', 31);
    const digest = await digestOf(t, runId);
    const log = StatementLog.open();
    try {
      await decide(t, 'approve', 'carol', { runId, turnDigest: digest });
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      await t.app.get(RunExecutor).settled(runId);
    } finally {
      log.close();
    }
    const write = log.transactions().filter((tx) => tx.some((s) => /page_text/.test(s.text)));
    expect(write.map((tx) => tx.map(shape))).toEqual([
      [
        'START TRANSACTION',
        'SELECT p.id, p.parent_id,',
        'INSERT INTO page_text',
        'WITH UPDATE run',
        'COMMIT',
      ],
    ]);
    expect(
      log.statements.filter((s) => /pending_effect = /.test(s.text) && !/pending_effect = NULL/.test(s.text)),
    ).toEqual([]);
    // why: the decider gate's read, then the write's own locked read, which also checks the
    // approved preview: no separate re-read of the preview before the write.
    expect(log.statements.filter((s) => /\bFROM page p\b/.test(s.text))).toHaveLength(2);
    // why: the settle is ONE statement: the run's new state, the model's last step (a CTE under
    // the same lease check) and the decision's outcome (the approvals module's rider). Nobody
    // listens to this run's settle (started over the API: no conversation; no webhook endpoint),
    // so no transaction wraps it.
    const settles = log.statements.filter((s) => /finished_at = now\(\)/.test(s.text));
    expect(settles).toHaveLength(1);
    expect(settles[0]!.text).toMatch(
      /^WITH settled AS \(UPDATE run[\s\S]*INSERT INTO run_step[\s\S]*UPDATE decision d/,
    );
    expect(log.transactions().filter((tx) => tx.includes(settles[0]!))).toEqual([]);
    // why: as a prepared statement the settle is planned once per connection; sent unnamed (a
    // whole-row projection is) it was parsed and planned at every settle.
    expect(settles[0]!.name).toMatch(/^cs_/);
    // and so is every statement with parameters from the decision to the settle
    expect(log.statements.filter((s) => s.values.length > 0 && !s.name).map((s) => s.text)).toEqual([]);
    expect(log.statements.filter((s) => /^UPDATE decision/.test(s.text))).toEqual([]);
    const decisions = await t.dataSource.query('SELECT outcome FROM decision WHERE run_id = $1', [runId]);
    expect(decisions).toEqual([{ outcome: 'COMPLETED' }]);
    expect(log.statements.filter((s) => /FROM conversation\b/.test(s.text))).toEqual([]);
    const [row] = await t.dataSource.query(
      `SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 31`,
      [ids.pages.About],
    );
    expect(row).toEqual({ seo_title: 'A sharper SEO title' });
  });

  it('a page changed since the preview is caught inside the write: nothing written, the run asks again', async () => {
    const runId = await waiting('Widget', 33);
    const first = (await pendingOf(t, runId))!;
    const live = `WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`;
    const [{ seo_title: original }] = await t.dataSource.query(`SELECT seo_title FROM page_text ${live}`, [
      ids.pages.Widget,
    ]);
    await t.dataSource.query(`UPDATE page_text SET seo_title = 'Edited meanwhile' ${live}`, [
      ids.pages.Widget,
    ]);
    try {
      const log = StatementLog.open();
      try {
        receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: first.turnDigest }));
        expect(await waitForRest(t, runId)).toBe('WAITING_FOR_APPROVAL');
        await t.app.get(RunExecutor).settled(runId);
      } finally {
        log.close();
      }
      const again = (await pendingOf(t, runId))!;
      expect(again.turn).toBe(first.turn + 1);
      expect(again.calls.map((c) => c.preview)).toEqual([
        ['seoTitle: "Edited meanwhile" -> "A sharper SEO title"'],
      ]);
      // why: no read of the preview before the write: the write read the page under its lock,
      // found it changed and rolled back; the new turn's preview is the one read after that.
      const write = log.transactions().filter((tx) => tx.some((q) => / FOR UPDATE\) w ON true/.test(q.text)));
      expect(write.map((tx) => tx.map(shape))).toEqual([
        ['START TRANSACTION', 'SELECT p.id, p.parent_id,', 'ROLLBACK'],
      ]);
      expect(await t.dataSource.query(`SELECT 1 FROM page_text WHERE workspace_id = 33`)).toEqual([]);
      const kinds = await t.dataSource.query(
        `SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence`,
        [runId],
      );
      expect(kinds.map((r: { kind: string }) => r.kind)).not.toContain('TOOL_WRITE');
      const [run] = await t.dataSource.query(`SELECT pending_effect FROM run WHERE id = $1`, [runId]);
      expect(run).toEqual({ pending_effect: null });

      receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: again.turnDigest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const [written] = await t.dataSource.query(
        `SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 33`,
        [ids.pages.Widget],
      );
      expect(written).toEqual({ seo_title: 'A sharper SEO title' });
    } finally {
      await t.dataSource.query(`UPDATE page_text SET seo_title = $2 ${live}`, [ids.pages.Widget, original]);
    }
  });

  itOnPostgres(
    'a write whose run lost its lease before the write completed is rolled back with it',
    async () => {
      const runId = await waiting('Widget', 32);
      // why: stands in for a reaper that took the run over while the write ran: inside the
      // write's transaction the run gets another lease, so the completion finds it gone.
      await t.dataSource.query(
        `CREATE FUNCTION steal_lease_on_write() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN UPDATE run SET lease_token = gen_random_uuid() WHERE id = '${runId}'; RETURN NEW; END $$`,
      );
      await t.dataSource.query(
        `CREATE TRIGGER steal_lease_on_write AFTER INSERT OR UPDATE ON page_text FOR EACH ROW
       WHEN (NEW.workspace_id = 32) EXECUTE FUNCTION steal_lease_on_write()`,
      );
      try {
        const digest = await digestOf(t, runId);
        const before = await t.dataSource.query(`SELECT step_count FROM run WHERE id = $1`, [runId]);
        await decide(t, 'approve', 'carol', { runId, turnDigest: digest });
        await t.app.get(RunExecutor).settled(runId);
        const texts = await t.dataSource.query(`SELECT 1 FROM page_text WHERE workspace_id = 32`);
        expect(texts).toEqual([]);
        const steps = await t.dataSource.query(
          `SELECT kind FROM run_step WHERE run_id = $1 AND sequence > $2 ORDER BY sequence`,
          [runId, before[0].step_count],
        );
        // the decision's step, the model's call; the write and its TOOL steps went with the rollback
        expect(steps.map((r: { kind: string }) => r.kind)).not.toContain('TOOL_WRITE');
        expect(steps.map((r: { kind: string }) => r.kind)).not.toContain('TOOL');
        const [run] = await t.dataSource.query(`SELECT status, pending_effect FROM run WHERE id = $1`, [
          runId,
        ]);
        expect(run).toEqual({ status: 'RUNNING', pending_effect: null });
      } finally {
        await t.dataSource.query('DROP TRIGGER steal_lease_on_write ON page_text');
        await t.dataSource.query('DROP FUNCTION steal_lease_on_write()');
      }
    },
  );
});
