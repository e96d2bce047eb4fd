import {
  createUserWithToken,
  decide,
  digestOf,
  effects,
  expectRefusedUnchanged,
  pendingOf,
  receiptOf,
  refuseWrites,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

/**
 * Checks 13-14 of docs/decisions.md (the decider gate, the audit record) and idempotency:
 * each refusal after the claim releases the run to its waiting state, unchanged.
 */
describe('decisions: gates after the claim, and idempotency', () => {
  const { t, ids } = useTestApp();

  const pageOf = (page: string) => ({ pageId: ids.pages[page]! });
  const editorRun = (page: string, as = 'alice') =>
    startResting(t, as, {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
    });

  describe('APPROVER_NOT_PERMITTED (check 13)', () => {
    let approveOnly: string;
    beforeAll(async () => {
      const [group] = await t.dataSource.query(
        `INSERT INTO access_group (name, grants, show_page_ids, edit_page_ids, edit_language_ids)
         VALUES ('approve-only', '{AGENT_APPROVE}', $1, '{}', '{}') RETURNING id`,
        [[Number(ids.pages.Home)]],
      );
      approveOnly = (await createUserWithToken(t, 'approve-only-user', [group.id])).token;
    });

    it('an approver without edit rights approves alice’s run: released, still waiting, page unchanged', async () => {
      const runId = await editorRun('About');
      const digest = await digestOf(t, runId);
      const before = await effects(t, runId, pageOf('About'));
      // the grant makes the run decidable for them: it is in their inbox, without detail
      const inbox = await t.gql<{ inbox: Array<{ detailVisible: boolean; run: { id: string } }> }>(
        `{ inbox { detailVisible run { id } } }`,
        {},
        approveOnly,
      );
      expect(inbox.data!.inbox.find((i) => i.run.id === runId)).toEqual({
        detailVisible: false,
        run: { id: runId },
      });

      const res = await decide(t, 'approve', approveOnly, { runId, turnDigest: digest });
      await expectRefusedUnchanged(t, res, 'APPROVER_NOT_PERMITTED', runId, before, pageOf('About'));
      expect(before).toMatchObject({ status: 'WAITING_FOR_APPROVAL', decisions: 0, claimedBy: null });

      // released, not stuck: someone who may edit the page approves the same turn
      receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest: digest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect((await effects(t, runId, pageOf('About'))).page!.seo_title).toBe('A sharper SEO title');
    });

    it('the same approver may deny (a denial performs no write)', async () => {
      const runId = await editorRun('Products');
      const before = await effects(t, runId, pageOf('Products'));
      const receipt = receiptOf(
        await decide(t, 'deny', approveOnly, { runId, turnDigest: await digestOf(t, runId), reason: 'SKIP' }),
      );
      expect(receipt.decision).toMatchObject({ kind: 'DENY', denialReason: 'SKIP' });
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const after = await effects(t, runId, pageOf('Products'));
      expect(after.page).toEqual(before.page);
      expect(after.kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(0);
      expect(after.decisions).toBe(1);
    });
  });

  describe('SUBMITTER_NOT_PERMITTED (check 13)', () => {
    it('the input turn also reads a page the submitter may not show', async () => {
      const configurationId = await upsertConfiguration(t, {
        identifier: 'read-and-ask',
        privacyLevel: 'FULL',
        providerOptions: {
          rounds: [
            {
              toolCalls: [
                { name: 'pages_read', arguments: { pageId: Number(ids.pages.Orphan), languageId: 0 } },
                {
                  name: 'ask_user',
                  arguments: {
                    question: 'Which tone?',
                    schema: {
                      type: 'object',
                      properties: { tone: { type: 'string', enum: ['formal', 'casual'] } },
                      required: ['tone'],
                    },
                  },
                },
              ],
            },
            { text: 'Thanks.' },
          ],
        },
      });
      const runId = await startResting(
        t,
        'admin',
        { configurationId, prompt: 'Read and ask' },
        'WAITING_FOR_INPUT',
      );
      const pending = await pendingOf(t, runId);
      expect(pending!.calls.map((c) => c.toolName)).toEqual(['pages_read', 'ask_user']);
      const before = await effects(t, runId);
      // bob holds the grant but may show only the Demo site: the Orphan page is outside it
      const res = await decide(t, 'submit', 'bob', {
        runId,
        turnDigest: pending!.turnDigest,
        values: { tone: 'formal' },
      });
      await expectRefusedUnchanged(t, res, 'SUBMITTER_NOT_PERMITTED', runId, before);
      expect(before).toMatchObject({ status: 'WAITING_FOR_INPUT', decisions: 0 });
      // the owner (an admin) may run the read: the same turn goes through
      receiptOf(
        await decide(t, 'submit', 'admin', {
          runId,
          turnDigest: pending!.turnDigest,
          values: { tone: 'formal' },
        }),
      );
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect((await effects(t, runId)).kinds.filter((k) => k === 'INPUT')).toHaveLength(1);
    });
  });

  describe('NOT_AUDITABLE (check 14)', () => {
    afterEach(async () => {
      await t.dataSource.query('DROP TRIGGER IF EXISTS refuse_decision_audit ON decision');
      await t.dataSource.query('DROP FUNCTION IF EXISTS refuse_decision_audit()');
    });

    it('the decision record cannot be stored: released, waiting, no decision row, no APPROVAL step', async () => {
      const runId = await editorRun('Widget');
      const digest = await digestOf(t, runId);
      const drop = await refuseWrites(
        t,
        'refuse_decision_audit',
        'INSERT ON decision',
        `NEW.run_id = '${runId}'::uuid`,
        'audit store unavailable',
      );
      const before = await effects(t, runId, pageOf('Widget'));
      const res = await decide(t, 'approve', 'carol', { runId, turnDigest: digest });
      await expectRefusedUnchanged(t, res, 'NOT_AUDITABLE', runId, before, pageOf('Widget'));
      expect(before).toMatchObject({ status: 'WAITING_FOR_APPROVAL', decisions: 0, claimedBy: null });
      expect(before.kinds).not.toContain('APPROVAL');
      // the message says nothing of the database error
      expect(res.errors![0]!.message).not.toMatch(/audit store unavailable/);

      // another run is not affected by the trigger
      const other = await editorRun('Blog');
      receiptOf(await decide(t, 'approve', 'carol', { runId: other, turnDigest: await digestOf(t, other) }));
      expect(await waitForRest(t, other)).toBe('COMPLETED');

      await drop();
      receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const after = await effects(t, runId, pageOf('Widget'));
      expect(after.decisions).toBe(1);
      expect(after.kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
      expect(after.page!.seo_title).toBe('A sharper SEO title');
    });
  });

  describe('IDEMPOTENCY_KEY_REUSED', () => {
    it('same key: the same receipt; another decision under it: refused; nothing new recorded', async () => {
      const runId = await editorRun('Launch');
      const digest = await digestOf(t, runId);
      const key = 'approve-launch-1';
      const first = receiptOf(
        await decide(t, 'approve', 'bob', { runId, turnDigest: digest, idempotencyKey: key }),
      );
      expect(first.decision).toMatchObject({ kind: 'APPROVE', decidedBy: { username: 'bob' } });

      const deny = await decide(t, 'deny', 'bob', { runId, turnDigest: digest, idempotencyKey: key });
      expect(errorCode(deny)).toBe('IDEMPOTENCY_KEY_REUSED');
      const otherDigest = await decide(t, 'approve', 'bob', {
        runId,
        turnDigest: 'a'.repeat(64),
        idempotencyKey: key,
      });
      expect(errorCode(otherDigest)).toBe('IDEMPOTENCY_KEY_REUSED');

      const again = receiptOf(
        await decide(t, 'approve', 'bob', { runId, turnDigest: digest, idempotencyKey: key }),
      );
      expect(again.decision.id).toBe(first.decision.id);
      expect(again.decision).toMatchObject({ kind: 'APPROVE', turn: 1, turnDigest: digest });

      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const settled = await effects(t, runId, pageOf('Launch'));
      // whatever happened since: still the first receipt, with the outcome it settled in
      const late = receiptOf(
        await decide(t, 'approve', 'bob', { runId, turnDigest: digest, idempotencyKey: key }),
      );
      expect(late.decision).toMatchObject({ id: first.decision.id, outcome: 'COMPLETED' });
      expect(late.run.status).toBe('COMPLETED');
      const lateDeny = await decide(t, 'deny', 'bob', { runId, turnDigest: digest, idempotencyKey: key });
      expect(errorCode(lateDeny)).toBe('IDEMPOTENCY_KEY_REUSED');

      const after = await effects(t, runId, pageOf('Launch'));
      expect(after).toEqual(settled);
      expect(after.decisions).toBe(1);
      expect(after.kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
      expect(after.kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);

      // the key is per user: carol's use of it is a decision of her own (and the run is done)
      const carol = await decide(t, 'approve', 'carol', { runId, turnDigest: digest, idempotencyKey: key });
      expect(errorCode(carol)).toBe('RUN_NOT_WAITING');
      // and no replay for a caller who may not know the run
      const dave = await decide(t, 'approve', 'dave', { runId, turnDigest: digest, idempotencyKey: key });
      expect(errorCode(dave)).toBe('NOT_FOUND');
    });

    it('a refused decision does not burn its key', async () => {
      const runId = await editorRun('Home', 'alice');
      const digest = await digestOf(t, runId);
      const stale = await decide(t, 'approve', 'bob', {
        runId,
        turnDigest: 'b'.repeat(64),
        idempotencyKey: 'k2',
      });
      expect(errorCode(stale)).toBe('STALE_TURN');
      const ok = receiptOf(
        await decide(t, 'approve', 'bob', { runId, turnDigest: digest, idempotencyKey: 'k2' }),
      );
      expect(ok.decision.kind).toBe('APPROVE');
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
    });
  });
});
