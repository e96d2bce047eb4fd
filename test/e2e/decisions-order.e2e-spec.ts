import { EDITOR_ROUNDS, QUESTION_ROUNDS } from '../../src/demo/demo-data';
import {
  createUserWithToken,
  decide,
  digestOf,
  effects,
  expectRefusedUnchanged,
  receiptOf,
  refuseWrites,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

/**
 * The order of the decision checks (docs/decisions.md, "The checks, in order"): each case
 * makes two or more checks apply at once and asserts that the earlier one answers, and that
 * nothing changed. A reordering of the checks fails here.
 */
describe('decisions: the checks apply in the documented order', () => {
  const { t, ids } = useTestApp();
  let copies = 0;

  const editorRun = (page: string, configurationId = ids.configurations['demo-editor']!) =>
    startResting(t, 'alice', { configurationId, prompt: 'SEO please', subjectPageId: ids.pages[page] });
  const questionRun = async (configurationId = ids.configurations['demo-question']!) =>
    startResting(t, 'alice', { configurationId, prompt: 'Ask me' }, 'WAITING_FOR_INPUT');
  const pageOf = (page: string) => ({ pageId: ids.pages[page]! });
  const deactivate = (configurationId: string) =>
    t.dataSource.query('UPDATE configuration SET is_active = false WHERE id = $1', [configurationId]);
  /** A user who may approve but sees only Home and may edit nothing: the decider gate refuses them. */
  const approveOnlyUser = async (name: string): Promise<string> => {
    const [group] = await t.dataSource.query(
      `INSERT INTO access_group (name, grants, show_page_ids, edit_page_ids, edit_language_ids)
       VALUES ($1, '{AGENT_APPROVE}', $2, '{}', '{}') RETURNING id`,
      [name, [Number(ids.pages.Home)]],
    );
    return (await createUserWithToken(t, name, [group.id])).token;
  };
  const corrupt = async (runId: string) => {
    const [{ checkpoint }] = await t.dataSource.query('SELECT checkpoint FROM run WHERE id = $1', [runId]);
    await t.dataSource.query('UPDATE run SET checkpoint = $2 WHERE id = $1', [runId, `x${checkpoint}`]);
  };

  it('idempotency replay comes first: a retried decision gets its receipt, not RUN_NOT_WAITING', async () => {
    const runId = await editorRun('Launch');
    const digest = await digestOf(t, runId);
    const first = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: digest, idempotencyKey: 'k1' }),
    );
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const before = await effects(t, runId, pageOf('Launch'));
    const again = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: digest, idempotencyKey: 'k1' }),
    );
    expect(again.decision.id).toBe(first.decision.id);
    expect(await effects(t, runId, pageOf('Launch'))).toEqual(before);
  });

  it('NOT_FOUND (who may know the run) before RUN_NOT_WAITING and a stale digest', async () => {
    const runId = await questionRun();
    const before = await effects(t, runId);
    const res = await decide(t, 'approve', 'dave', { runId, turnDigest: 'f'.repeat(64) });
    await expectRefusedUnchanged(t, res, 'NOT_FOUND', runId, before);
  });

  it('RUN_NOT_WAITING before a stale digest, four-eyes and the configuration checks', async () => {
    const configurationId = await upsertConfiguration(t, {
      identifier: `order-question-${++copies}`,
      providerOptions: { rounds: QUESTION_ROUNDS },
    });
    const runId = await questionRun(configurationId);
    await deactivate(configurationId);
    const before = await effects(t, runId);
    const res = await decide(t, 'approve', 'alice', { runId, turnDigest: 'f'.repeat(64) });
    await expectRefusedUnchanged(t, res, 'RUN_NOT_WAITING', runId, before);
  });

  it('a late decider on the same turn hears ALREADY_RESUMING, even where four-eyes would refuse them', async () => {
    const runId = await editorRun('Home', ids.configurations['demo-four-eyes']);
    const digest = await digestOf(t, runId);
    // A decision on this very turn is being carried out (claimed under a live lease).
    await t.dataSource.query(
      `UPDATE run SET status = 'RUNNING', claimed_by = 'test', lease_token = gen_random_uuid(),
              lease_expires_at = now() + interval '1 hour' WHERE id = $1`,
      [runId],
    );
    const before = await effects(t, runId, pageOf('Home'));
    const res = await decide(t, 'approve', 'alice', { runId, turnDigest: digest });
    await expectRefusedUnchanged(t, res, 'ALREADY_RESUMING', runId, before, pageOf('Home'));
    await t.dataSource.query(`UPDATE run SET status = 'CANCELLED', lease_token = NULL WHERE id = $1`, [
      runId,
    ]);
  });

  it('CONFIGURATION_INACTIVE before SELF_APPROVAL_DENIED', async () => {
    const configurationId = await upsertConfiguration(t, {
      identifier: `order-four-eyes-${++copies}`,
      requireSecondApprover: true,
      providerOptions: { rounds: EDITOR_ROUNDS },
    });
    const runId = await editorRun('About', configurationId);
    await deactivate(configurationId);
    const before = await effects(t, runId, pageOf('About'));
    const res = await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) });
    await expectRefusedUnchanged(t, res, 'CONFIGURATION_INACTIVE', runId, before, pageOf('About'));
  });

  it('SELF_APPROVAL_DENIED before STATE_UNREADABLE', async () => {
    const runId = await editorRun('Home', ids.configurations['demo-four-eyes']);
    const digest = await digestOf(t, runId);
    await corrupt(runId);
    const before = await effects(t, runId, pageOf('Home'));
    const res = await decide(t, 'approve', 'alice', { runId, turnDigest: digest });
    await expectRefusedUnchanged(t, res, 'SELF_APPROVAL_DENIED', runId, before, pageOf('Home'));
  });

  it('STATE_UNREADABLE before INVALID_INPUT (the schema lives in the state)', async () => {
    const runId = await questionRun();
    const digest = await digestOf(t, runId);
    await corrupt(runId);
    const before = await effects(t, runId);
    const res = await decide(t, 'submit', 'alice', { runId, turnDigest: digest, values: { tone: 'loud' } });
    await expectRefusedUnchanged(t, res, 'STATE_UNREADABLE', runId, before);
  });

  it('INVALID_INPUT before STALE_TURN', async () => {
    const runId = await questionRun();
    const before = await effects(t, runId);
    const res = await decide(t, 'submit', 'alice', {
      runId,
      turnDigest: 'f'.repeat(64),
      values: { tone: 'loud' },
    });
    await expectRefusedUnchanged(t, res, 'INVALID_INPUT', runId, before);
  });

  it('STALE_TURN before the decider gate', async () => {
    const approveOnly = await approveOnlyUser('order-approve-only');
    const runId = await editorRun('About');
    const before = await effects(t, runId, pageOf('About'));
    const stale = await decide(t, 'approve', approveOnly, { runId, turnDigest: 'f'.repeat(64) });
    await expectRefusedUnchanged(t, stale, 'STALE_TURN', runId, before, pageOf('About'));
    // the gate is what answers once the digest is right
    const gated = await decide(t, 'approve', approveOnly, { runId, turnDigest: await digestOf(t, runId) });
    await expectRefusedUnchanged(t, gated, 'APPROVER_NOT_PERMITTED', runId, before, pageOf('About'));
  });

  it('the decider gate before the claim: a gated decider never reaches the claim statement', async () => {
    const approveOnly = await approveOnlyUser('order-gate-first');
    const runId = await editorRun('About');
    const digest = await digestOf(t, runId);
    const before = await effects(t, runId, pageOf('About'));
    // why: any claim of this run fails (the statement is refused by the database), so the
    // answer tells whether a decision got as far as the claim.
    const drop = await refuseWrites(
      t,
      'order_refuse_claim',
      'UPDATE ON run',
      `OLD.id = '${runId}'::uuid`,
      'the claim was reached',
    );
    try {
      const gated = await decide(t, 'approve', approveOnly, { runId, turnDigest: digest });
      await expectRefusedUnchanged(t, gated, 'APPROVER_NOT_PERMITTED', runId, before, pageOf('About'));
      // a permitted decider passes the gate and reaches the claim, whose statement (with the
      // record riding in it) fails as a whole: nothing claimed, nothing recorded
      const claimed = await decide(t, 'approve', 'carol', { runId, turnDigest: digest });
      expect(errorCode(claimed)).toBe('NOT_AUDITABLE');
      expect(await effects(t, runId, pageOf('About'))).toEqual(before);
    } finally {
      await drop();
    }
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest }));
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
  });
});
