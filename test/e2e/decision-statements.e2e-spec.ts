import {
  APPROVE,
  decide,
  digestOf,
  receiptOf,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { openBurst } from '../support/burst';
import { RunExecutor } from '../../src/modules/runs';
import { waitForRest } from '../support/runs';
import { StatementLog } from '../support/statement-log';
import { useTestApp } from '../support/suite';

/**
 * What an inline decision sends (docs/decisions.md, "The checks, in order"): the token's check,
 * ONE read (the run, its configuration and the page it is about, the decider gate's page: its
 * subject page, or the page a run without one defaults to), and ONE write, in no transaction: the
 * claim, the decision's step and the decision record (the approvals module's rider). A call on
 * another page than that one reads its page in a statement of its own.
 */
describe('decisions: the claim statement', () => {
  const { t, ids } = useTestApp();

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
    // why: only the decision request's own statements; a worker's or a sweeper's pass may send
    // one in between (a queued-run pickup once did, in CI).
    expect(claim.requestId).toBeDefined();
    const before = log.statements
      .slice(0, log.statements.indexOf(claim))
      .filter((s) => s.requestId === claim.requestId);
    expect(before.filter((s) => /^START TRANSACTION/.test(s.text))).toEqual([]);
    // why: the token's use stamp is written once a minute (docs/security.md), not per decision.
    const perDecision = before.filter((s) => !/^UPDATE api_token SET last_used_at/.test(s.text));
    return { claim: claim.text, before: perDecision.map((s) => s.text) };
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

  /** The run's read: the run with its configuration and the page it is about joined to it. */
  const RUN_READ =
    /^SELECT [\s\S]* FROM run r LEFT JOIN configuration jc ON jc\.id = r\.configuration_id LEFT JOIN page jp ON jp\.id = COALESCE\(r\.subject_page_id, \(SELECT id FROM page WHERE parent_id IS NULL [^)]*\)\) WHERE r\.id = \$1$/;
  /** The look-up of the page a run without a subject page defaults to, on its own. */
  const DEFAULT_PAGE_LOOKUP = /^SELECT id FROM page WHERE parent_id IS NULL/;

  it('an approval is three statements: the token, one read (run, configuration, the gate’s page), the claim with its step and record', async () => {
    const runId = await waiting();
    const { claim, before } = await logged(runId, 'approve');
    expect(claim).toMatch(/INSERT INTO run_step[\s\S]*INSERT INTO decision[\s\S]*FROM claimed/);
    expect(before).toHaveLength(2);
    expect(before[0]).toMatch(/\bFROM api_token\b/);
    expect(before[1]).toMatch(RUN_READ);
    // why: a run's skills travel in its checkpoint; a decision reads only the configuration's settings.
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

  it('a run without a subject page: the page its call defaults to comes with the run, for the gate and the continuation', async () => {
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
    });
    const digest = await digestOf(t, runId);
    const log = StatementLog.open();
    try {
      expect(receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest })).path).toBe(
        'INLINE',
      );
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      await t.app.get(RunExecutor).settled(runId);
    } finally {
      log.close();
    }
    const claim = log.statements.findIndex((s) =>
      /^WITH claimed AS \( UPDATE run SET status = 'RUNNING'/.test(s.text),
    );
    const before = log.statements
      .slice(0, claim)
      .map((s) => s.text)
      .filter((s) => !/^UPDATE api_token SET last_used_at/.test(s));
    expect(before).toHaveLength(2);
    expect(before[1]).toMatch(RUN_READ);
    // why: neither the gate nor the continuation looks the default page up again.
    expect(log.statements.filter((s) => DEFAULT_PAGE_LOOKUP.test(s.text))).toEqual([]);
    // why: the write went to the first site's root page, the one the gate judged.
    const writes = await t.dataSource.query(
      `SELECT split_part(payload->>'id', ':', 1)::int AS page FROM run_step WHERE run_id = $1 AND kind = 'TOOL_WRITE'`,
      [runId],
    );
    expect(writes).toEqual([{ page: Number(ids.pages.Home) }]);
  });

  it('decisions arriving together read their run in one statement after the first one’s; one wins', async () => {
    const runId = await waiting('Blog');
    const digest = await digestOf(t, runId);
    const opened = await openBurst(t.url, 16, t.tokens.carol!);
    const log = StatementLog.open();
    let answers;
    try {
      answers = await opened.send(
        Array.from({ length: 16 }, () => ({
          query: APPROVE,
          variables: { input: { runId, turnDigest: digest } },
          token: t.tokens.carol!,
        })),
      );
    } finally {
      log.close();
      opened.close();
    }
    const reads = log.statements.filter((s) => s.text.includes('FROM run r LEFT JOIN configuration jc'));
    // why: the first request's read goes at once; the others reach their resolvers once the
    // token lookup they shared answers, and read the run at once (the first of them) and then
    // together (one id: the plain form). Two when both lookups answer in the same turn.
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads.length).toBeLessThanOrEqual(3);
    const codes = answers.map((a) => (a.body.errors ? a.body.errors[0]!.extensions!.code : 'RECEIPT'));
    expect(codes.filter((c) => c === 'RECEIPT')).toHaveLength(1);
    expect(codes.filter((c) => c === 'ALREADY_RESUMING')).toHaveLength(15);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    expect(await stored(runId)).toEqual([{ kind: 'APPROVE', open: false, step: 'APPROVAL' }]);
  });

  it('a write on another page than the run’s subject: the gate reads that page in a statement of its own', async () => {
    const title = `Written elsewhere ${Date.now()}`;
    const configurationId = await upsertConfiguration(t, {
      identifier: 'statements-other-page',
      providerOptions: {
        rounds: [
          {
            toolCalls: [
              {
                name: 'pages_update',
                arguments: { pageId: Number(ids.pages.Blog), languageId: 0, seoTitle: title },
              },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    const runId = await startResting(t, 'alice', {
      configurationId,
      prompt: 'Retitle the blog',
      subjectPageId: ids.pages.Products,
    });
    const { before } = await logged(runId, 'approve');
    expect(before).toHaveLength(3);
    expect(before[1]).toMatch(RUN_READ);
    expect(before[2]).toMatch(/\bFROM page p WHERE p\.id = ANY\(\$1::int\[\]\)/);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const [blog] = await t.dataSource.query(
      'SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0',
      [ids.pages.Blog],
    );
    expect(blog).toEqual({ seo_title: title });
  });

  it('a denial meets no gate (it executes nothing): no page read of its own', async () => {
    const runId = await waiting('Blog');
    const { claim, before } = await logged(runId, 'deny');
    expect(claim).toMatch(/INSERT INTO decision/);
    expect(before).toHaveLength(2);
    expect(before[1]).toMatch(RUN_READ);
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
});
