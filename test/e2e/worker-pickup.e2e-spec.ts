import { PagesService } from '../../src/modules/content';
import { EventBus } from '../../src/platform/pubsub/event-bus';
import { RunExecutor } from '../../src/modules/runs';
import { QueuedRunPicker } from '../../src/modules/worker';
import { recordedEdits } from '../support/decisions';
import { waitForRest } from '../support/runs';
import { StatementLog, type LoggedStatement } from '../support/statement-log';
import { useTestApp } from '../support/suite';

/** The read-ahead: the texts of every run the pickup took, in one statement. */
const isReadAhead = (s: LoggedStatement) =>
  /FROM unnest\(\$1::int\[\], \$2::int\[\], \$3::int\[\]\)/.test(s.text);
/** A write's own read of its page text (one page). */
const isOwnRead = (s: LoggedStatement) => /LEFT JOIN LATERAL[\s\S]*WHERE p\.id = \$1$/.test(s.text);
/** A run's count-only progress topic. */
const PROGRESS = /^run\.progress\.(.+)$/;

/**
 * What a worker's pickup does for all the runs it took at once (docs/run-lifecycle.md): it reads
 * the page texts their approved writes start from in one statement ("The write of an approved
 * call"), each write still guarded on the text it starts from when it is sent; and it publishes
 * their decision steps side by side, each run's before its own continuation starts
 * (docs/decisions.md, "The worker side and hand-backs").
 */
describe('a worker pickup', () => {
  const { t, ids } = useTestApp({}, { beforeClose: () => jest.restoreAllMocks() });
  let picker: QueuedRunPicker;

  beforeAll(async () => {
    picker = t.app.get(QueuedRunPicker);
    // why: the pickups below are the test's own (`pickOnce`), with statements logged.
    await picker.stop();
  });

  const recorded = (page: string, workspaces: readonly number[]) =>
    recordedEdits(t, ids.configurations['demo-editor']!, ids.pages[page]!, workspaces);

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
    // why: in the order the claim returned its runs, which no statement promises.
    const [pages, languages, spaces] = ahead[0]!.values as [number[], number[], number[]];
    expect([pages, languages, [...spaces].sort((a, b) => a - b)]).toEqual([
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

  it('every run’s step publish is under way while the first is still held; each continuation follows its own', async () => {
    const runIds = await recorded('Products', [81, 82, 83]);
    const bus = t.app.get(EventBus);
    const publish = bus.publish.bind(bus);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    /** Per run, what its progress stream was asked to publish, in order. */
    const asked = new Map<string, Array<{ kind: string; stepCount: number }>>();
    jest.spyOn(bus, 'publish').mockImplementation(async (topic: string, payload: unknown) => {
      const runId = PROGRESS.exec(topic)?.[1];
      if (runId && runIds.includes(runId)) {
        const list = asked.get(runId) ?? [];
        const first = list.length === 0;
        list.push(payload as { kind: string; stepCount: number });
        asked.set(runId, list);
        // why: the first publish of each run is its decision step; hold them all (a slow Redis).
        if (first) await held;
      }
      await publish(topic, payload);
    });
    try {
      const pickup = picker.pickOnce();
      const deadline = Date.now() + 5_000;
      while (asked.size < runIds.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      // all three decision steps were asked for while the first was still held, and no run's
      // continuation published anything before its own step went out
      expect([...asked.keys()].sort()).toEqual([...runIds].sort());
      for (const runId of runIds) expect(asked.get(runId)).toHaveLength(1);
      release();
      await pickup;
      const rests = await Promise.all(runIds.map((id) => waitForRest(t, id)));
      await Promise.all(runIds.map((id) => t.app.get(RunExecutor).settled(id)));
      expect(rests).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    } finally {
      release();
      jest.restoreAllMocks();
    }
    // each run: the decision step published first (the APPROVAL step, one in the table), then
    // its continuation's progress at rising counts
    const approvals: Array<{ n: number }> = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'APPROVAL') AS n
         FROM unnest($1::uuid[]) AS r(id)`,
      [runIds],
    );
    expect(approvals.map((r) => r.n)).toEqual([1, 1, 1]);
    for (const runId of runIds) {
      const counts = asked.get(runId)!.map((e) => e.stepCount);
      expect(counts.length).toBeGreaterThan(1);
      expect([...counts].sort((a, b) => a - b)).toEqual(counts);
      expect(asked.get(runId)!.at(-1)!.kind).toBe('SETTLED');
    }
  });
});
