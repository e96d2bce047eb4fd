import { decide, digestOf, receiptOf, startResting } from '../support/decisions';
import { demoIds, waitForRest } from '../support/runs';
import { StatementLog, type LoggedStatement } from '../support/statement-log';
import { bootTestApp, TestApp } from '../support/test-app';

/** The first words of a statement, enough to tell which write or read it is. */
const shape = (s: LoggedStatement): string =>
  s.text
    .replace(/^WITH \w+ AS \( /, 'WITH ')
    .split(' ')
    .slice(0, 3)
    .join(' ');

/**
 * What an inline decision sends inside its one transaction (docs/decisions.md, "The checks, in
 * order"): the claim, the decision record, the decision's step, nothing else. The decider
 * gate's pages are read before it, beside the configuration, so the run's row is locked for
 * four statements and the commit.
 */
describe('decisions: the claim transaction', () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const waiting = () =>
    startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Products,
    });

  /** Decides the run with statements logged; the claim's transaction and what came before it. */
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
    const claim = log
      .transactions()
      .find((tx) => tx.some((s) => /^UPDATE run SET status = 'RUNNING'/.test(s.text)));
    expect(claim).toBeDefined();
    const before = log.statements.slice(0, log.statements.indexOf(claim![0]!));
    return { claim: claim!.map(shape), before: before.map((s) => s.text) };
  }

  it('an approval: the gate reads its pages before the transaction; inside, the claim, the record, the step', async () => {
    const runId = await waiting();
    const { claim, before } = await logged(runId, 'approve');
    expect(claim).toEqual([
      'START TRANSACTION',
      'UPDATE run SET',
      'INSERT INTO decision',
      'WITH UPDATE run',
      'COMMIT',
    ]);
    expect(before.filter((s) => /FROM page p\b/.test(s))).toHaveLength(1);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
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
    expect(claim).toEqual([
      'START TRANSACTION',
      'UPDATE run SET',
      'INSERT INTO decision',
      'WITH UPDATE run',
      'COMMIT',
    ]);
    expect(before.filter((s) => /FROM page\b/.test(s))).toEqual([]);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const [decision] = await t.dataSource.query('SELECT kind FROM decision WHERE run_id = $1', [runId]);
    expect(decision).toEqual({ kind: 'DENY' });
  });
});
