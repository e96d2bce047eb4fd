import { APPROVE, digestOf, upsertConfiguration } from '../support/decisions';
import {
  codeOf,
  DECIDE,
  GET,
  SEND,
  SET_SKILL,
  SUBMIT,
  useChatApp,
  type Conversation,
} from '../support/conversations';
import { waitForRest } from '../support/runs';

// Decisions in the chat (docs/chat-and-skills.md) through the public API, on the demo data:
// approvals and answers given in the conversation, the refusals that change nothing, concurrent
// decisions, and runs decided or handed back outside the chat.

describe('conversations and skills', () => {
  const chat = useChatApp();
  const { counts, create, get, rest, runRow, send, turn, withDefaultTask } = chat;

  describe('decisions in the chat', () => {
    it('answers APPROVAL_STILL_PENDING for a waiting non-process run, and writes nothing', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home, languageId: 0 });
      const waiting = await turn('alice', c.id, 'Fix the title');
      expect(waiting.status).toBe('AWAITING_APPROVAL');
      const before = await counts();
      expect(codeOf(await send('alice', c.id, 'hello?'))).toBe('APPROVAL_STILL_PENDING');
      expect(await counts()).toEqual(before);
      expect((await get('alice', c.id)).status).toBe('AWAITING_APPROVAL');
    });

    it('withdraws a waiting process proposal when a new message comes (guarded cancel)', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.About, languageId: 0, skill: 'seo-process' });
      const waiting = await turn('alice', c.id, 'Optimise');
      const r1 = waiting.lastRunId!;
      const next = await turn('alice', c.id, 'Actually, do something else');
      expect((await runRow(r1)).status).toBe('CANCELLED');
      expect(next.messages.filter((m) => m.notice === 'PROPOSAL_WITHDRAWN')).toHaveLength(1);
      expect(await runRow(next.lastRunId!)).toMatchObject({ predecessor_run_id: r1 });
    });

    it('refuses NOT_AWAITING_APPROVAL, NOT_AWAITING_INPUT and someone else’s conversation', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home });
      const idle = await chat.t.gql(
        DECIDE,
        { input: { conversationId: c.id, turnDigest: 'x', approve: true } },
        'alice',
      );
      expect(codeOf(idle)).toBe('NOT_AWAITING_APPROVAL');
      const waiting = await turn('alice', c.id, 'Fix the title');
      const submit = await chat.t.gql(
        SUBMIT,
        { input: { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, values: {} } },
        'alice',
      );
      expect(codeOf(submit)).toBe('NOT_AWAITING_INPUT');
      for (const query of [DECIDE]) {
        const res = await chat.t.gql(
          query,
          { input: { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true } },
          'carol',
        );
        expect(codeOf(res)).toBe('NOT_FOUND');
      }
      expect(codeOf(await send('carol', c.id, 'hi'))).toBe('NOT_FOUND');
      expect(
        (await chat.t.gql<{ conversation: null }>(GET, { id: c.id }, 'carol')).data?.conversation,
      ).toBeNull();
      expect((await runRow(waiting.lastRunId!)).status).toBe('WAITING_FOR_APPROVAL');
    });

    it('refuses picks, turns and decisions that do not apply, and changes nothing', async () => {
      const erin = await create('erin', {
        pageId: chat.ids.pages.Blog,
        languageId: 0,
        skill: 'tone-of-voice',
      });
      const alice = await create('alice', { pageId: chat.ids.pages.Home });
      const snapshot = async () => ({
        counts: await counts(),
        rows: await chat.t.dataSource.query(
          `SELECT id, status, skill_identifier, skill_start_pending, last_run_id, active_run_id, updated_at
             FROM conversation WHERE id = ANY($1::uuid[]) ORDER BY id`,
          [[erin.id, alice.id]],
        ),
        decisions: (await chat.t.dataSource.query('SELECT count(*)::int AS n FROM decision'))[0].n,
      });
      const cases: Array<[string, string, Record<string, unknown>, string]> = [
        ['erin', SET_SKILL, { conversationId: erin.id, skill: 'seo-process' }, 'SKILL_SECOND_APPROVER'],
        ['erin', SET_SKILL, { conversationId: erin.id, skill: 'legacy-skill' }, 'SKILL_UNKNOWN'],
        ['alice', SET_SKILL, { conversationId: alice.id, skill: 'no-such-skill' }, 'SKILL_UNKNOWN'],
        [
          'alice',
          DECIDE,
          { conversationId: alice.id, turnDigest: 'x'.repeat(64), approve: true },
          'NOT_AWAITING_APPROVAL',
        ],
        [
          'alice',
          SUBMIT,
          { conversationId: alice.id, turnDigest: 'x'.repeat(64), values: {} },
          'NOT_AWAITING_INPUT',
        ],
        ['alice', SEND, { conversationId: alice.id, text: '   ' }, 'BAD_USER_INPUT'],
        [
          'alice',
          SEND,
          { conversationId: alice.id, text: 'hi', viewContext: { pageId: '999999' } },
          'PAGE_NOT_ACCESSIBLE',
        ],
        [
          'alice',
          SEND,
          {
            conversationId: alice.id,
            text: 'hi',
            viewContext: { pageId: chat.ids.pages.Home, languageId: 2 },
          },
          'LANGUAGE_NOT_ACCESSIBLE',
        ],
      ];
      for (const [as, query, input, code] of cases) {
        const before = await snapshot();
        expect([input, codeOf(await chat.t.gql(query, { input }, as))]).toEqual([input, code]);
        expect(await snapshot()).toEqual(before);
      }
      // the chat configuration switched off: a turn is refused before anything is queued
      await chat.t.dataSource.query(
        `UPDATE configuration SET is_active = false WHERE identifier = 'demo-editor'`,
      );
      try {
        const before = await snapshot();
        expect(codeOf(await send('alice', alice.id, 'hello'))).toBe('CONFIGURATION_INACTIVE');
        expect(await snapshot()).toEqual(before);
      } finally {
        await chat.t.dataSource.query(
          `UPDATE configuration SET is_active = true WHERE identifier = 'demo-editor'`,
        );
      }
    });

    it('refuses a second chat decision while the first is carried out (DECISION_IN_FLIGHT), changing nothing', async () => {
      await upsertConfiguration(chat.t, {
        identifier: 'slow-approval',
        providerOptions: {
          rounds: [
            { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Slowly' } }] },
            { text: 'Done slowly.', delayMs: 1500 },
          ],
        },
      });
      await withDefaultTask('slow-approval', async () => {
        const c = await create('alice', { pageId: chat.ids.pages.Home });
        const waiting = await turn('alice', c.id, 'Change the title');
        const input = { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true };
        expect((await chat.t.gql(DECIDE, { input }, 'alice')).errors).toBeUndefined();
        const before = await counts();
        const [{ n: decisions }] = await chat.t.dataSource.query('SELECT count(*)::int AS n FROM decision');
        expect(codeOf(await chat.t.gql(DECIDE, { input }, 'alice'))).toBe('DECISION_IN_FLIGHT');
        expect(await counts()).toEqual(before);
        expect((await chat.t.dataSource.query('SELECT count(*)::int AS n FROM decision'))[0].n).toBe(
          decisions,
        );
        expect((await rest('alice', c.id)).status).toBe('IDLE');
      });
    }, 30_000);

    it('lets exactly one of two concurrent chat decisions through', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const input = { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true };
      const results = await Promise.all([
        chat.t.gql(DECIDE, { input }, 'alice'),
        chat.t.gql(DECIDE, { input }, 'alice'),
      ]);
      const ok = results.filter((r) => !r.errors);
      const refused = results.filter((r) => r.errors).map(codeOf);
      expect(ok).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(['DECISION_IN_FLIGHT', 'ALREADY_RESUMING', 'NOT_AWAITING_APPROVAL']).toContain(refused[0]);
      const done = await rest('alice', c.id);
      expect(done.status).toBe('IDLE');
      const [{ n }] = await chat.t.dataSource.query(
        'SELECT count(*)::int AS n FROM decision WHERE run_id = $1',
        [waiting.lastRunId],
      );
      expect(n).toBe(1);
      expect(done.messages.filter((m) => m.role === 'ASSISTANT')).toHaveLength(1);
    });

    it('answers a question through submitConversationInput, checking the values first', async () => {
      await withDefaultTask('demo-question', async () => {
        const c = await create('alice', { pageId: chat.ids.pages.Home });
        const waiting = await turn('alice', c.id, 'Write me a greeting');
        expect(waiting.status).toBe('AWAITING_INPUT');
        expect(waiting.pending!.kind).toBe('INPUT');
        const submit = (values: Record<string, unknown>) =>
          chat.t.gql<{ submitConversationInput: Conversation }>(
            SUBMIT,
            { input: { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, values } },
            'alice',
          );
        const bad = await submit({ tone: 'rude' });
        expect(codeOf(bad)).toBe('INVALID_INPUT');
        expect((await get('alice', c.id)).status).toBe('AWAITING_INPUT');
        const good = await submit({ tone: 'formal' });
        expect(good.data!.submitConversationInput.status).toBe('PROCESSING');
        const done = await rest('alice', c.id);
        expect(done.status).toBe('IDLE');
        expect(done.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
      });
    });

    it('says RUN_FINISHED_OUTSIDE when the run was approved in the inbox meanwhile', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const runId = waiting.lastRunId!;
      // bob approves the same (non-process) run in his inbox
      const approved = await chat.t.gql(
        APPROVE,
        { input: { runId, turnDigest: await digestOf(chat.t, runId) } },
        'bob',
      );
      expect(approved.errors).toBeUndefined();
      expect(await waitForRest(chat.t, runId)).toBe('COMPLETED');
      // alice still has the card open and decides it in the chat
      const res = await chat.t.gql(
        DECIDE,
        { input: { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true } },
        'alice',
      );
      expect(codeOf(res)).toBe('NOT_AWAITING_APPROVAL');
      const now = await get('alice', c.id);
      expect(now.status).toBe('IDLE');
      expect(now.approvalRunId).toBeNull();
      const outside = now.messages.filter((m) => m.notice === 'RUN_FINISHED_OUTSIDE');
      expect(outside).toHaveLength(1);
      expect(outside[0]!.text).toBe('This proposal was decided outside the chat.');
      const [{ n }] = await chat.t.dataSource.query(
        'SELECT count(*)::int AS n FROM decision WHERE run_id = $1',
        [runId],
      );
      expect(n).toBe(1);
    });

    it('turns a hand-back from the worker into a notice and waits again', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const runId = waiting.lastRunId!;
      // the state a chat decision leaves before a worker hands it back
      await chat.t.dataSource.query(
        `UPDATE conversation SET status = 'PROCESSING', deciding = true WHERE id = $1`,
        [c.id],
      );
      await chat.t.dataSource.query(
        `UPDATE run SET hand_back = jsonb_build_object('code', 'STALE_TURN') WHERE id = $1`,
        [runId],
      );
      const now = await get('alice', c.id); // repaired from the run's own status
      expect(now.status).toBe('AWAITING_APPROVAL');
      const notices = now.messages.filter((m) => m.notice === 'DECISION_HANDED_BACK');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.noticeArgs).toEqual({ code: 'STALE_TURN' });
      expect(notices[0]!.text).toContain('the proposal changed');
      expect((await get('alice', c.id)).messages).toHaveLength(now.messages.length); // said once
    });
  });
});
