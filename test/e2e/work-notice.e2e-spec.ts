import { Client } from 'pg';
import { WORK_CHANNEL } from '../../src/modules/runs';
import { decide, digestOf, receiptOf, sleep, startResting } from '../support/decisions';
import { startRun, until, waitForRest } from '../support/runs';
import { StatementLog } from '../support/statement-log';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { itOnPostgres } from '../support/test-database';

/**
 * How workers in processes of their own hear of new work (docs/architecture.md, events; docs/decisions.md, "The decision record"):
 * the statement that writes the work carries its NOTIFY, so a LISTENing worker hears of exactly
 * the work that committed, and nothing is sent for it after the commit.
 */
describe('workers hear of work from the write that made it', () => {
  let listener: Client | null = null;
  const { t, ids } = useTestApp({ DECISION_PATH: 'durable' }, { beforeClose: () => listener?.end() });
  const heard: string[] = [];

  beforeAll(async () => {
    if (!t.db.url) return;
    listener = new Client({ connectionString: t.db.url });
    await listener.connect();
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query(`LISTEN ${WORK_CHANNEL}`);
  });

  /** Keeps a worker heartbeat fresh while `work` runs, so the durable path is taken. */
  async function withLiveWorker<T>(work: () => Promise<T>): Promise<T> {
    await t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('notice-worker', 'worker:test')
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );
    try {
      return await work();
    } finally {
      await t.dataSource.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'notice-worker'`);
    }
  }

  /** Runs `work` with statements logged; the notifications heard meanwhile, after a grace period. */
  async function noticed<T>(work: () => Promise<T>, expected: number) {
    const before = heard.length;
    const log = StatementLog.open();
    let result: T;
    try {
      result = await work();
    } finally {
      log.close();
    }
    if (expected > 0) await until(() => heard.length - before >= expected, 5000, 'the notifications');
    await sleep(200);
    const separate = log.statements.filter((s) => /^SELECT pg_notify/.test(s.text));
    return { result, log, notices: heard.length - before, separate };
  }

  const waiting = (page: string) =>
    startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
    });

  itOnPostgres(
    'a durable decision: its record carries the one NOTIFY; a refused one sends none',
    async () => {
      const runId = await withLiveWorker(() => waiting('Blog'));
      const digest = await digestOf(t, runId);

      const stale = await withLiveWorker(() =>
        noticed(
          () => decide(t, 'approve', 'carol', { runId, turnDigest: '0'.repeat(64), path: 'DURABLE' }),
          0,
        ),
      );
      expect(errorCode(stale.result)).toBe('STALE_TURN');
      expect(stale.notices).toBe(0);
      expect(stale.separate).toEqual([]);

      const taken = await withLiveWorker(() =>
        noticed(() => decide(t, 'approve', 'carol', { runId, turnDigest: digest, path: 'DURABLE' }), 1),
      );
      expect(receiptOf(taken.result).path).toBe('DURABLE');
      expect(taken.notices).toBe(1);
      expect(taken.separate).toEqual([]);
      const records = taken.log.statements.filter((s) =>
        /UPDATE run SET status = 'DECISION_RECORDED'/.test(s.text),
      );
      expect(records).toHaveLength(1);
      expect(records[0]!.text).toMatch(
        /SELECT now\(\) AS at, pg_notify\('countersign_work', ''\) FROM claimed$/,
      );
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
    },
  );

  itOnPostgres('a queued run: its insert carries the one NOTIFY, and a worker takes it', async () => {
    const started = await withLiveWorker(() =>
      noticed(
        () =>
          startRun(t, 'alice', {
            configurationId: ids.configurations['demo-editor'],
            prompt: 'SEO please',
            subjectPageId: ids.pages.Products,
          }),
        1,
      ),
    );
    expect(started.result.status).toBe('QUEUED');
    expect(started.notices).toBe(1);
    expect(started.separate).toEqual([]);
    const inserts = started.log.statements.filter((s) => /INSERT INTO run \(/.test(s.text));
    expect(inserts).toHaveLength(1);
    expect(inserts[0]!.text).toMatch(
      /^WITH queued AS \( INSERT INTO run .* SELECT queued\."id", .*, pg_notify\('countersign_work', ''\) FROM queued$/,
    );
    // the answer is the row the insert returned: the start does not read the run back
    expect(started.log.statements.filter((s) => /FROM run r WHERE r\.id = \$1/.test(s.text))).toEqual([]);
    expect(await waitForRest(t, started.result.id)).toBe('WAITING_FOR_APPROVAL');
  });
});
