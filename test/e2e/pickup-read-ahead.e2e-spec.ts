import { PagesService } from '../../src/modules/content';
import { RunExecutor } from '../../src/modules/runs';
import { QueuedRunPicker } from '../../src/modules/worker';
import { decide, digestOf, receiptOf, startResting } from '../support/decisions';
import { demoIds, waitForRest } from '../support/runs';
import { StatementLog, type LoggedStatement } from '../support/statement-log';
import { bootTestApp, TestApp } from '../support/test-app';

/** The read-ahead: the texts of every run the pickup took, in one statement. */
const isReadAhead = (s: LoggedStatement) =>
  /FROM unnest\(\$1::int\[\], \$2::int\[\], \$3::int\[\]\)/.test(s.text);
/** A write's own read of its page text (one page). */
const isOwnRead = (s: LoggedStatement) => /LEFT JOIN LATERAL[\s\S]*WHERE p\.id = \$1$/.test(s.text);

/**
 * A worker's pickup reads the page texts the approved writes of all the runs it took start from
 * in one statement (docs/run-lifecycle.md, "The write of an approved call"); each write is still
 * guarded on the text it starts from when it is sent.
 */
describe('a worker pickup reads its writes ahead', () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  let picker: QueuedRunPicker;

  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
    picker = t.app.get(QueuedRunPicker);
    // why: the pickups below are the test's own (`pickOnce`), with statements logged.
    await picker.stop();
  });
  afterAll(async () => {
    await t.close();
  });

  /** demo-editor runs waiting to write a new SEO title on the page, one per workspace. */
  async function recorded(page: string, workspaces: readonly number[]): Promise<string[]> {
    const runIds: string[] = [];
    for (const workspaceId of workspaces) {
      runIds.push(
        await startResting(t, 'alice', {
          configurationId: ids.configurations['demo-editor'],
          prompt: 'SEO please',
          subjectPageId: ids.pages[page],
          workspaceId,
        }),
      );
    }
    await t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('read-ahead-worker', 'worker:test')
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );
    try {
      for (const runId of runIds) {
        const digest = await digestOf(t, runId);
        const res = await decide(t, 'approve', 'carol', { runId, turnDigest: digest, path: 'DURABLE' });
        expect(receiptOf(res).path).toBe('DURABLE');
      }
    } finally {
      await t.dataSource.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'read-ahead-worker'`);
    }
    return runIds;
  }

  /** One pickup with statements logged, then every run it took at rest. */
  async function pickedUp(runIds: readonly string[]): Promise<{ log: StatementLog; rests: string[] }> {
    const log = StatementLog.open();
    try {
      await picker.pickOnce();
      const rests = await Promise.all(runIds.map((id) => waitForRest(t, id)));
      await Promise.all(runIds.map((id) => t.app.get(RunExecutor).settled(id)));
      return { log, rests };
    } finally {
      log.close();
    }
  }

  const texts = (page: string, workspaces: readonly number[]) =>
    t.dataSource.query(
      `SELECT workspace_id, body, seo_title FROM page_text
        WHERE page_id = $1 AND language_id = 0 AND workspace_id = ANY($2::int[]) ORDER BY workspace_id`,
      [ids.pages[page], workspaces],
    );

  const toolWrites = async (runIds: readonly string[]): Promise<number[]> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'TOOL_WRITE') AS n
         FROM unnest($1::uuid[]) WITH ORDINALITY AS r(id, k) ORDER BY r.k`,
      [runIds],
    );
    return rows.map((r) => r.n);
  };

  it('one statement reads the texts of all three runs; no write reads its own', async () => {
    const workspaces = [51, 52, 53];
    const runIds = await recorded('Products', workspaces);
    const { log, rests } = await pickedUp(runIds);
    expect(rests).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    const ahead = log.statements.filter(isReadAhead);
    expect(ahead).toHaveLength(1);
    expect(ahead[0]!.values).toEqual([
      [1, 2, 3].map(() => Number(ids.pages.Products)),
      [0, 0, 0],
      workspaces,
    ]);
    expect(log.statements.filter(isOwnRead)).toEqual([]);
    // each write rode in its completion, guarded on the text read ahead
    expect(log.statements.filter((s) => /^WITH leased AS \(/.test(s.text))).toHaveLength(3);
    expect((await texts('Products', workspaces)).map((r: { seo_title: string }) => r.seo_title)).toEqual([
      'A sharper SEO title',
      'A sharper SEO title',
      'A sharper SEO title',
    ]);
    expect(await toolWrites(runIds)).toEqual([1, 1, 1]);
  });

  it('a text edited after the read-ahead: each guard writes nothing, and each call runs again on the edited text', async () => {
    const workspaces = [61, 62];
    const runIds = await recorded('About', workspaces);
    const live = `WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`;
    const [{ body: original }] = await t.dataSource.query(`SELECT body FROM page_text ${live}`, [
      ids.pages.About,
    ]);
    const pages = t.app.get(PagesService);
    const readAhead = pages.readAhead.bind(pages);
    const spy = jest.spyOn(pages, 'readAhead').mockImplementation(async (at) => {
      const reads = await readAhead(at);
      await t.dataSource.query(`UPDATE page_text SET body = 'Edited after the read-ahead' ${live}`, [
        ids.pages.About,
      ]);
      return reads;
    });
    try {
      const { log, rests } = await pickedUp(runIds);
      expect(rests).toEqual(['COMPLETED', 'COMPLETED']);
      expect(log.statements.filter(isReadAhead)).toHaveLength(1);
      // the carried writes found the text changed; each ran again in a transaction, locked
      expect(log.statements.filter((s) => /^WITH leased AS \(/.test(s.text))).toHaveLength(2);
      const rewritten = log
        .transactions()
        .filter((tx) => tx.some((s) => /INSERT INTO page_text/.test(s.text)));
      expect(rewritten).toHaveLength(2);
      expect(await texts('About', workspaces)).toEqual([
        { workspace_id: 61, body: 'Edited after the read-ahead', seo_title: 'A sharper SEO title' },
        { workspace_id: 62, body: 'Edited after the read-ahead', seo_title: 'A sharper SEO title' },
      ]);
      expect(await toolWrites(runIds)).toEqual([1, 1]);
    } finally {
      spy.mockRestore();
      await t.dataSource.query(`UPDATE page_text SET body = $2 ${live}`, [ids.pages.About, original]);
    }
  });
});
