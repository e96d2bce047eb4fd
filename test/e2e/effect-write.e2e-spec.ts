import { decide, digestOf, pendingOf, receiptOf, startResting } from '../support/decisions';
import { PagesService } from '../../src/modules/content';
import { RunExecutor } from '../../src/modules/runs';
import { waitForRest } from '../support/runs';
import { StatementLog, type LoggedStatement } from '../support/statement-log';
import { useTestApp } from '../support/suite';
import { itOnPostgres } from '../support/test-database';

/** The first words of a statement, enough to tell which write or read it is. */
const shape = (s: LoggedStatement): string =>
  s.text
    .replace(/^WITH \w+ AS \( /, 'WITH ')
    .split(' ')
    .slice(0, 3)
    .join(' ');

/** The statement that completes a write call with the write riding in it. */
const isCarried = (s: LoggedStatement) => /^WITH leased AS \(/.test(s.text);

/**
 * The approved page write of a continuation (docs/run-lifecycle.md, "The write of an approved
 * call"): read without a lock, then sent in the statement that completes the call (its steps,
 * the cleared effect, the checkpoint), guarded by the run's lease and by the text it was
 * computed from; where the guard fails, the call runs again in a transaction with a locked read.
 */
describe('runs: the approved write and its completion', () => {
  const { t, ids } = useTestApp();

  /** A demo-editor run waiting to write a new SEO title on the page, in the workspace. */
  const waiting = (page: string, workspaceId: number) =>
    startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
      workspaceId,
    });

  /** Approves the run's turn with statements logged, and waits for where it rests. */
  async function approved(runId: string): Promise<{ log: StatementLog; rest: string }> {
    const digest = await digestOf(t, runId);
    const log = StatementLog.open();
    try {
      receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest }));
      const rest = await waitForRest(t, runId);
      await t.app.get(RunExecutor).settled(runId);
      return { log, rest };
    } finally {
      log.close();
    }
  }

  /** Runs `after` once the write's unlocked read returned, before the call completes. */
  function afterTheRead(after: () => Promise<unknown>): jest.SpyInstance {
    const pages = t.app.get(PagesService);
    const plan = pages.planGuardedTextUpdate.bind(pages);
    return jest.spyOn(pages, 'planGuardedTextUpdate').mockImplementation(async (...args) => {
      const write = await plan(...args);
      await after();
      return write;
    });
  }

  async function stepKinds(runId: string): Promise<string[]> {
    const rows = await t.dataSource.query(`SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence`, [
      runId,
    ]);
    return rows.map((r: { kind: string }) => r.kind);
  }

  async function textOf(page: string, workspaceId: number) {
    return t.dataSource.query(
      `SELECT body, seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = $2`,
      [ids.pages[page], workspaceId],
    );
  }

  it('rides in the completion: one unlocked read and one statement, in no transaction', async () => {
    const runId = await waiting('About', 31);
    const { log, rest } = await approved(runId);
    expect(rest).toBe('COMPLETED');
    expect(log.transactions().filter((tx) => tx.some((s) => /page_text/.test(s.text)))).toEqual([]);
    const carried = log.statements.filter(isCarried);
    expect(carried).toHaveLength(1);
    expect(carried[0]!.text).toMatch(
      /FOR NO KEY UPDATE\), written AS \(INSERT INTO page_text[\s\S]*UPDATE run[\s\S]*INSERT INTO run_step/,
    );
    expect(carried[0]!.name).toMatch(/^cs_/);
    // why: the decider gate's page came with the run's read (its subject page); the write's own
    // read, unlocked: no read of the preview of its own, and no lock held across round trips.
    const reads = log.statements.filter((s) => /\bFROM page p\b/.test(s.text));
    expect(reads).toHaveLength(1);
    expect(reads.filter((s) => /FOR (UPDATE|SHARE)\) [wl] ON true/.test(s.text))).toEqual([]);
    expect(log.statements.filter((s) => /^INSERT INTO page_text/.test(s.text))).toEqual([]);
    // no statement of its own announces the effect: it exists only with the write
    expect(
      log.statements.filter((s) => /pending_effect = /.test(s.text) && !/pending_effect = NULL/.test(s.text)),
    ).toEqual([]);
    // the settle: ONE statement, with the model's last step and the decision's outcome
    const settles = log.statements.filter((s) => /finished_at = now\(\)/.test(s.text));
    expect(settles).toHaveLength(1);
    expect(settles[0]!.text).toMatch(
      /^WITH settled AS \(UPDATE run[\s\S]*INSERT INTO run_step[\s\S]*UPDATE decision d/,
    );
    expect(log.transactions().filter((tx) => tx.includes(settles[0]!))).toEqual([]);
    // every statement with parameters from the decision to the settle goes prepared
    expect(log.statements.filter((s) => s.values.length > 0 && !s.name).map((s) => s.text)).toEqual([]);
    const decisions = await t.dataSource.query('SELECT outcome FROM decision WHERE run_id = $1', [runId]);
    expect(decisions).toEqual([{ outcome: 'COMPLETED' }]);
    expect(await textOf('About', 31)).toEqual([
      expect.objectContaining({ seo_title: 'A sharper SEO title' }),
    ]);
    expect((await stepKinds(runId)).filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
  });

  it('an update that changes nothing sends the completion alone: no write, no transaction', async () => {
    const page = ids.pages.Products;
    await t.dataSource.query(
      `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title, seo_description)
       SELECT page_id, language_id, 37, title, body, 'A sharper SEO title', seo_description FROM page_text
        WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`,
      [page],
    );
    const [{ updated_at: before }] = await t.dataSource.query(
      `SELECT updated_at FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 37`,
      [page],
    );
    const runId = await waiting('Products', 37);
    const { log, rest } = await approved(runId);
    expect(rest).toBe('COMPLETED');
    expect(log.statements.filter(isCarried)).toEqual([]);
    expect(log.transactions().filter((tx) => tx.some((s) => /page_text|FROM page p\b/.test(s.text)))).toEqual(
      [],
    );
    const completions = log.statements.filter((s) =>
      /^WITH r AS \( UPDATE run .*pending_effect = NULL, checkpoint/.test(s.text),
    );
    expect(completions).toHaveLength(1);
    expect(log.transactions().filter((tx) => tx.includes(completions[0]!))).toEqual([]);
    const [{ updated_at: after }] = await t.dataSource.query(
      `SELECT updated_at FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 37`,
      [page],
    );
    expect(after).toEqual(before);
    expect((await stepKinds(runId)).filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
  });

  it('a page changed since the preview is caught at the read: nothing written, the run asks again', async () => {
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
      const { log, rest } = await approved(runId);
      expect(rest).toBe('WAITING_FOR_APPROVAL');
      const again = (await pendingOf(t, runId))!;
      expect(again.turn).toBe(first.turn + 1);
      expect(again.calls.map((c) => c.preview)).toEqual([
        ['seoTitle: "Edited meanwhile" -> "A sharper SEO title"'],
      ]);
      // why: the read found the change before anything was sent: no completion, no transaction.
      expect(log.statements.filter(isCarried)).toEqual([]);
      expect(
        log.transactions().filter((tx) => tx.some((s) => /page_text|FROM page p\b/.test(s.text))),
      ).toEqual([]);
      expect(await textOf('Widget', 33)).toEqual([]);
      expect(await stepKinds(runId)).not.toContain('TOOL_WRITE');
      const [run] = await t.dataSource.query(`SELECT pending_effect FROM run WHERE id = $1`, [runId]);
      expect(run).toEqual({ pending_effect: null });

      receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: again.turnDigest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect(await textOf('Widget', 33)).toEqual([
        expect.objectContaining({ seo_title: 'A sharper SEO title' }),
      ]);
    } finally {
      await t.dataSource.query(`UPDATE page_text SET seo_title = $2 ${live}`, [ids.pages.Widget, original]);
    }
  });

  it.each([
    ["a workspace's first write (a copy of live): live edited", 34, false],
    ["a write of the workspace's own row: that row edited", 35, true],
  ])(
    '%s between the read and the write: the guard writes nothing, the call runs again in a transaction on the edited text',
    async (_name, workspace, ownRow) => {
      const page = ids.pages.Blog;
      const edited = ownRow ? workspace : 0;
      if (ownRow) {
        await t.dataSource.query(
          `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title, seo_description)
           SELECT page_id, language_id, $2, title, body, seo_title, seo_description FROM page_text
            WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`,
          [page, workspace],
        );
      }
      const where = `WHERE page_id = $1 AND language_id = 0 AND workspace_id = $2`;
      const [{ body: original }] = await t.dataSource.query(`SELECT body FROM page_text ${where}`, [
        page,
        edited,
      ]);
      const runId = await waiting('Blog', workspace);
      const spy = afterTheRead(() =>
        t.dataSource.query(`UPDATE page_text SET body = 'Edited between read and write' ${where}`, [
          page,
          edited,
        ]),
      );
      try {
        const { log, rest } = await approved(runId);
        expect(rest).toBe('COMPLETED');
        // the carried write found the text changed and sent nothing of the call ...
        expect(log.statements.filter(isCarried)).toHaveLength(1);
        // ... which ran again in a transaction, reading under a lock, writing on the edited text
        const write = log
          .transactions()
          .filter((tx) => tx.some((s) => /page_text|FROM page p\b/.test(s.text)));
        expect(write.map((tx) => tx.map(shape))).toEqual([
          [
            'START TRANSACTION',
            'SELECT p.id, p.parent_id,',
            ownRow ? 'UPDATE page_text SET' : 'INSERT INTO page_text',
            'WITH UPDATE run',
            'COMMIT',
          ],
        ]);
        expect(await textOf('Blog', workspace)).toEqual([
          { body: 'Edited between read and write', seo_title: 'A sharper SEO title' },
        ]);
        const [steps] = await t.dataSource.query(
          `SELECT count(*) FILTER (WHERE kind = 'TOOL_WRITE')::int AS writes,
                  count(*) FILTER (WHERE kind = 'TOOL' AND payload->>'toolName' = 'pages_update')::int AS calls
             FROM run_step WHERE run_id = $1`,
          [runId],
        );
        expect(steps).toEqual({ writes: 1, calls: 1 });
      } finally {
        spy.mockRestore();
        await t.dataSource.query(`UPDATE page_text SET body = $3 ${where}`, [page, edited, original]);
      }
    },
  );

  it('a run that lost its lease before its completion writes nothing and stores nothing of the call', async () => {
    const runId = await waiting('Widget', 32);
    const [{ step_count: before }] = await t.dataSource.query(`SELECT step_count FROM run WHERE id = $1`, [
      runId,
    ]);
    // why: stands in for a reaper that took the run over between the read and the write.
    const spy = afterTheRead(() =>
      t.dataSource.query(`UPDATE run SET lease_token = gen_random_uuid() WHERE id = $1`, [runId]),
    );
    try {
      const digest = await digestOf(t, runId);
      const log = StatementLog.open();
      try {
        await decide(t, 'approve', 'carol', { runId, turnDigest: digest });
        await t.app.get(RunExecutor).settled(runId);
      } finally {
        log.close();
      }
      expect(log.statements.filter(isCarried)).toHaveLength(1);
      expect(await textOf('Widget', 32)).toEqual([]);
      const kinds = await t.dataSource.query(
        `SELECT kind FROM run_step WHERE run_id = $1 AND sequence > $2 ORDER BY sequence`,
        [runId, before],
      );
      expect(kinds.map((r: { kind: string }) => r.kind)).toEqual(['APPROVAL']);
      const [run] = await t.dataSource.query(`SELECT status, pending_effect FROM run WHERE id = $1`, [runId]);
      expect(run).toEqual({ status: 'RUNNING', pending_effect: null });
    } finally {
      spy.mockRestore();
    }
  });

  itOnPostgres(
    'in the transaction, a write whose run lost its lease before the write completed is rolled back with it',
    async () => {
      const runId = await waiting('Widget', 36);
      // why: a write that cannot ride in its completion goes in a transaction; this one is sent
      // there, and inside it a trigger gives the run another lease, as a reaper taking it over
      // while the write ran would: the completion finds the lease gone.
      const spy = jest.spyOn(t.app.get(PagesService), 'planGuardedTextUpdate').mockResolvedValue('no-text');
      await t.dataSource.query(
        `CREATE FUNCTION steal_lease_on_write() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN UPDATE run SET lease_token = gen_random_uuid() WHERE id = '${runId}'; RETURN NEW; END $$`,
      );
      await t.dataSource.query(
        `CREATE TRIGGER steal_lease_on_write AFTER INSERT OR UPDATE ON page_text FOR EACH ROW
       WHEN (NEW.workspace_id = 36) EXECUTE FUNCTION steal_lease_on_write()`,
      );
      try {
        const [{ step_count: before }] = await t.dataSource.query(
          `SELECT step_count FROM run WHERE id = $1`,
          [runId],
        );
        const digest = await digestOf(t, runId);
        await decide(t, 'approve', 'carol', { runId, turnDigest: digest });
        await t.app.get(RunExecutor).settled(runId);
        expect(spy).toHaveBeenCalledTimes(1);
        expect(await textOf('Widget', 36)).toEqual([]);
        const kinds = await t.dataSource.query(
          `SELECT kind FROM run_step WHERE run_id = $1 AND sequence > $2 ORDER BY sequence`,
          [runId, before],
        );
        // the decision's step; the write and its TOOL steps went with the rollback
        expect(kinds.map((r: { kind: string }) => r.kind)).toEqual(['APPROVAL']);
        const [run] = await t.dataSource.query(`SELECT status, pending_effect FROM run WHERE id = $1`, [
          runId,
        ]);
        expect(run).toEqual({ status: 'RUNNING', pending_effect: null });
      } finally {
        spy.mockRestore();
        await t.dataSource.query('DROP TRIGGER steal_lease_on_write ON page_text');
        await t.dataSource.query('DROP FUNCTION steal_lease_on_write()');
      }
    },
  );
});
