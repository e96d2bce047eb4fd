import { bootTestApp, TestApp } from '../support/test-app';
import { APPROVE, digestOf, upsertConfiguration } from '../support/decisions';
import { collect, demoIds, until, waitForRest } from '../support/runs';
import type {
  Conversation as ApiConversation,
  ConversationSkill,
  Message as ApiMessage,
  PendingTurn,
  ViewContext,
} from '../support/generated/schema';

// The chat (docs/chat-and-skills.md) through the public API, on the demo data.

const FIELDS = `id status title lastRunId approvalRunId
  viewContext { pageId languageId module }
  skill { identifier skillId isProcess startPending }
  messages { id role text notice noticeArgs runId }
  pending { kind turnDigest }`;
const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { ${FIELDS} } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${FIELDS} } }`;
const SET_SKILL = `mutation($input: SetConversationSkillInput!) { setConversationSkill(input: $input) { ${FIELDS} } }`;
const DECIDE = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { ${FIELDS} } }`;
const SUBMIT = `mutation($input: SubmitConversationInputInput!) { submitConversationInput(input: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { conversation(id: $id) { ${FIELDS} } }`;
const CATALOGUE = `{ skillCatalogue { identifier name description isProcess skillId } }`;
const EVENTS = `subscription($id: ID!) { conversationEvents(conversationId: $id) {
  kind conversationId status stepCount message { role text notice } } }`;

type Message = Pick<ApiMessage, 'id' | 'role' | 'text' | 'notice' | 'runId'> & {
  noticeArgs: Record<string, unknown> | null;
};
type Conversation = Pick<ApiConversation, 'id' | 'status' | 'title' | 'lastRunId' | 'approvalRunId'> & {
  viewContext: Omit<ViewContext, '__typename'>;
  skill: Omit<ConversationSkill, '__typename'> | null;
  messages: Message[];
  pending: Pick<PendingTurn, 'kind' | 'turnDigest'> | null;
};

describe('conversations and skills', () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  let skillIds: Record<string, number>;

  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
    const rows: Array<{ id: number; identifier: string }> = await t.dataSource.query(
      'SELECT id, identifier FROM skill',
    );
    skillIds = Object.fromEntries(rows.map((r) => [r.identifier, r.id]));
    // why: the model's input is asserted on the CONTEXT step, which keeps the transcript only under FULL.
    await t.dataSource.query(`UPDATE configuration SET privacy_level = 'FULL'`);
  }, 60_000);
  afterAll(async () => t?.close());

  const codeOf = (res: { errors?: Array<{ extensions?: Record<string, unknown> }> }) =>
    res.errors?.[0]?.extensions?.code;

  async function counts(): Promise<{ conversations: number; messages: number; runs: number }> {
    const [row] = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM conversation)::int AS conversations,
              (SELECT count(*) FROM conversation_message)::int AS messages,
              (SELECT count(*) FROM run)::int AS runs`,
    );
    return row;
  }

  async function create(as: string, input: Record<string, unknown>): Promise<Conversation> {
    const res = await t.gql<{ createConversation: Conversation }>(CREATE, { input }, as);
    if (!res.data?.createConversation) throw new Error(`createConversation: ${JSON.stringify(res.errors)}`);
    return res.data.createConversation;
  }

  async function get(as: string, id: string): Promise<Conversation> {
    const res = await t.gql<{ conversation: Conversation | null }>(GET, { id }, as);
    if (!res.data?.conversation) throw new Error(`conversation: ${JSON.stringify(res.errors)}`);
    return res.data.conversation;
  }

  /** Polls until the conversation stops PROCESSING. */
  async function rest(as: string, id: string): Promise<Conversation> {
    let last: Conversation | null = null;
    await until(
      async () => {
        last = await get(as, id);
        return last.status !== 'PROCESSING';
      },
      20_000,
      `conversation ${id} to rest`,
    );
    return last!;
  }

  async function send(as: string, id: string, text: string, viewContext?: Record<string, unknown>) {
    return t.gql<{ sendMessage: Conversation }>(
      SEND,
      { input: { conversationId: id, text, viewContext } },
      as,
    );
  }

  /** Sends a message and waits for the turn to rest. */
  async function turn(as: string, id: string, text: string, viewContext?: Record<string, unknown>) {
    const res = await send(as, id, text, viewContext);
    if (!res.data?.sendMessage) throw new Error(`sendMessage: ${JSON.stringify(res.errors)}`);
    expect(res.data.sendMessage.status).toBe('PROCESSING');
    return rest(as, id);
  }

  async function approveInChat(as: string, c: Conversation): Promise<Conversation> {
    const res = await t.gql<{ decideConversationApproval: Conversation }>(
      DECIDE,
      { input: { conversationId: c.id, turnDigest: c.pending!.turnDigest, approve: true } },
      as,
    );
    if (!res.data?.decideConversationApproval) throw new Error(`decide: ${JSON.stringify(res.errors)}`);
    expect(res.data.decideConversationApproval.status).toBe('PROCESSING');
    return rest(as, c.id);
  }

  async function runRow(id: string) {
    const [row] = await t.dataSource.query(
      `SELECT status, predecessor_run_id, skill_invocation, process_pin, dropped_process FROM run WHERE id = $1`,
      [id],
    );
    return row as {
      status: string;
      predecessor_run_id: string | null;
      skill_invocation: Record<string, any> | null;
      process_pin: Record<string, any> | null;
      dropped_process: { reason: string } | null;
    };
  }

  /** What the runtime received at the start of a run: the CONTEXT step (FULL privacy). */
  async function contextOf(runId: string): Promise<Record<string, any>> {
    const [row] = await t.dataSource.query(
      `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'CONTEXT'`,
      [runId],
    );
    return row.payload;
  }

  async function stepKinds(runId: string): Promise<string[]> {
    const rows: Array<{ kind: string }> = await t.dataSource.query(
      'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
      [runId],
    );
    return rows.map((r) => r.kind);
  }

  async function withDefaultTask<T>(configurationIdentifier: string, body: () => Promise<T>): Promise<T> {
    await t.dataSource.query(
      `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = $1) WHERE identifier = 'default'`,
      [configurationIdentifier],
    );
    try {
      return await body();
    } finally {
      await t.dataSource.query(
        `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'demo-editor')
          WHERE identifier = 'default'`,
      );
    }
  }

  describe('the skill catalogue', () => {
    it('lists the enabled skills of the chat configuration and Task, deduplicated; CHAT only', async () => {
      for (const user of ['alice', 'dave', 'erin']) {
        const res = await t.gql<{ skillCatalogue: Array<Record<string, unknown>> }>(CATALOGUE, {}, user);
        expect(res.errors).toBeUndefined();
        expect(res.data!.skillCatalogue.map((e) => [e.identifier, e.isProcess, e.skillId])).toEqual([
          ['seo-process', true, String(skillIds['seo-process'])],
          ['tone-of-voice', false, String(skillIds['tone-of-voice'])],
        ]);
      }
      // bob (approvers) has no CHAT grant
      expect(codeOf(await t.gql(CATALOGUE, {}, 'bob'))).toBe('CHAT_NOT_ALLOWED');
    });

    it('adds the Task’s own skills once', async () => {
      await t.dataSource.query(
        `INSERT INTO task_skill (task_id, skill_id)
           SELECT t.id, s.id FROM task t, skill s WHERE t.identifier = 'default' AND s.identifier = 'tone-of-voice'`,
      );
      try {
        const res = await t.gql<{ skillCatalogue: Array<{ identifier: string }> }>(CATALOGUE, {}, 'alice');
        expect(res.data!.skillCatalogue.map((e) => e.identifier)).toEqual(['seo-process', 'tone-of-voice']);
      } finally {
        await t.dataSource.query(`DELETE FROM task_skill`);
      }
    });
  });

  describe('starting a conversation', () => {
    it('refuses by checks 1-5 in order and creates nothing on a refusal', async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['erin', { pageId: ids.pages.About }, 'PAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: '999999' }, 'PAGE_NOT_ACCESSIBLE'],
        ['dave', { pageId: ids.pages.Home, languageId: 1 }, 'LANGUAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: ids.pages.Home, languageId: 2 }, 'LANGUAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: ids.pages.Orphan, languageId: 0 }, 'PAGE_NOT_ACCESSIBLE'],
        // a page outside every site has language 0 only
        ['admin', { pageId: ids.pages.Orphan, languageId: 1 }, 'LANGUAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: ids.pages.Home, languageId: 0, skill: 'legacy-skill' }, 'SKILL_UNKNOWN'],
        ['alice', { skill: 'no-such-skill' }, 'SKILL_UNKNOWN'],
        ['erin', { pageId: ids.pages.Blog, languageId: 0, skill: 'seo-process' }, 'SKILL_SECOND_APPROVER'],
        // check order: the page is refused before the skill
        ['erin', { pageId: ids.pages.About, skill: 'legacy-skill' }, 'PAGE_NOT_ACCESSIBLE'],
        [
          'alice',
          { pageId: ids.pages.Home, languageId: 2, skill: 'legacy-skill' },
          'LANGUAGE_NOT_ACCESSIBLE',
        ],
        ['bob', { pageId: ids.pages.Home }, 'CHAT_NOT_ALLOWED'],
      ];
      for (const [user, input, code] of cases) {
        const before = await counts();
        const res = await t.gql(CREATE, { input }, user);
        expect([user, input, codeOf(res)]).toEqual([user, input, code]);
        expect(await counts()).toEqual(before);
      }
    });

    it('starts where the checks pass, keeping the language only with a page', async () => {
      const orphan = await create('admin', { pageId: ids.pages.Orphan, languageId: 0 });
      expect(orphan.viewContext).toEqual({ pageId: ids.pages.Orphan, languageId: 0, module: null });
      expect(orphan.status).toBe('IDLE');
      expect(orphan.messages).toEqual([]);

      const tone = await create('erin', { pageId: ids.pages.Blog, languageId: 0, skill: 'tone-of-voice' });
      expect(tone.skill).toEqual({
        identifier: 'tone-of-voice',
        skillId: String(skillIds['tone-of-voice']),
        isProcess: false,
        startPending: false,
      });

      const noPage = await create('alice', { languageId: 1, title: 'Questions' });
      expect(noPage.viewContext).toEqual({ pageId: null, languageId: null, module: null });
      expect(noPage.title).toBe('Questions');

      const process = await create('alice', { pageId: ids.pages.About, languageId: 1, skill: 'seo-process' });
      expect(process.skill).toMatchObject({ identifier: 'seo-process', isProcess: true, startPending: true });
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM run WHERE owner_id = $1', [
        Number(ids.users.alice),
      ]);
      expect(n).toBe(0);
    });

    it('tells the page picker which languages a user may start in (Page.editableLanguages)', async () => {
      const query = `query($id: ID!) { page(id: $id) { editableLanguages { id languageId isoCode } } }`;
      const cases: Array<[string, string, number[]]> = [
        ['alice', ids.pages.About!, [0, 1]],
        ['dave', ids.pages.About!, []],
        ['erin', ids.pages.Blog!, [0]],
        ['admin', ids.pages.Home!, [0, 1, 2]],
        ['admin', ids.pages.Orphan!, [0]],
      ];
      for (const [as, pageId, expected] of cases) {
        const res = await t.gql<{ page: { editableLanguages: Array<{ id: string; languageId: number }> } }>(
          query,
          { id: pageId },
          as,
        );
        expect([as, pageId, res.data!.page.editableLanguages.map((l) => l.languageId)]).toEqual([
          as,
          pageId,
          expected,
        ]);
        // every language offered is one a start accepts
        for (const languageId of expected.filter(() => as !== 'admin')) {
          expect((await t.gql(CREATE, { input: { pageId, languageId } }, as)).errors).toBeUndefined();
        }
      }
    });

    it('refuses a start beyond CHAT_MAX_ACTIVE_CONVERSATIONS', async () => {
      const limited = await bootTestApp({ CHAT_MAX_ACTIVE_CONVERSATIONS: '2' });
      try {
        for (let i = 0; i < 2; i += 1) {
          expect((await limited.gql(CREATE, { input: {} }, 'carol')).errors).toBeUndefined();
        }
        const res = await limited.gql(CREATE, { input: {} }, 'carol');
        expect(codeOf(res)).toBe('TOO_MANY_CONVERSATIONS');
        const [{ n }] = await limited.dataSource.query('SELECT count(*)::int AS n FROM conversation');
        expect(n).toBe(2);
      } finally {
        await limited.close();
      }
    }, 60_000);
  });

  describe('turns and the process skill', () => {
    it('sends the invocation on turn 1, the predecessor on turns 2 and 3, the invocation again after a pick', async () => {
      const c = await create('alice', { pageId: ids.pages.About, languageId: 1, skill: 'seo-process' });

      // turn 1: a new start with the invocation, no predecessor
      let now = await turn('alice', c.id, 'Optimise the SEO of this page');
      expect(now.status).toBe('AWAITING_APPROVAL');
      const r1 = now.lastRunId!;
      expect(now.approvalRunId).toBe(r1);
      expect(now.skill!.startPending).toBe(false);
      const invocation = {
        skillId: skillIds['seo-process'],
        identifier: 'seo-process',
        subject: { table: 'pages', id: Number(ids.pages.About), languageId: 1 },
        // the process pins the approved version it starts with
        skillVersionId: expect.any(Number),
        version: 1,
      };
      expect(await runRow(r1)).toMatchObject({ predecessor_run_id: null, skill_invocation: invocation });
      const ctx1 = await contextOf(r1);
      expect(ctx1.invocation).toEqual(invocation);
      expect(ctx1.process).toMatchObject({ ...invocation, misses: 0 });
      expect(ctx1.subject).toEqual({ pageId: Number(ids.pages.About), languageId: 1 });
      const system = ctx1.messages[0];
      expect(system.role).toBe('system');
      expect(system.content).toContain(`page ${ids.pages.About}`);
      expect(system.content).toContain('The page language is 1 (Deutsch, de)');
      // a process run is decided only in the chat, only by its initiator
      const digest = now.pending!.turnDigest;
      for (const as of ['alice', 'bob']) {
        const res = await t.gql(APPROVE, { input: { runId: r1, turnDigest: digest } }, as);
        expect(codeOf(res)).toBe('PROCESS_RUN_DECIDED_IN_CHAT');
      }
      now = await approveInChat('alice', now);
      expect(now.status).toBe('IDLE');
      expect(now.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
      expect((await runRow(r1)).status).toBe('COMPLETED');

      // turns 2 and 3 name their predecessor and carry no invocation; the pin is passed on
      let previous = r1;
      for (const text of ['And the description?', 'Thanks, go on']) {
        now = await turn('alice', c.id, text);
        const run = now.lastRunId!;
        expect(run).not.toBe(previous);
        expect(await runRow(run)).toMatchObject({ predecessor_run_id: previous, skill_invocation: null });
        const ctx = await contextOf(run);
        expect(ctx.invocation).toBeNull();
        expect(ctx.process).toMatchObject({ skillId: skillIds['seo-process'], misses: 0 });
        // the history goes with the turn (users' and the assistant's messages)
        const contents = (ctx.messages as Array<{ role: string; content: string }>).map((m) => m.content);
        expect(contents).toContain('Optimise the SEO of this page');
        now = await approveInChat('alice', now);
        previous = run;
      }

      // picking the process skill again starts it anew: invocation, no predecessor
      const picked = await t.gql<{ setConversationSkill: Conversation }>(
        SET_SKILL,
        { input: { conversationId: c.id, skill: 'seo-process' } },
        'alice',
      );
      expect(picked.data!.setConversationSkill.skill).toMatchObject({ startPending: true });
      expect(picked.data!.setConversationSkill.messages).toHaveLength(now.messages.length); // sends no message
      now = await turn('alice', c.id, 'Start over');
      const r4 = now.lastRunId!;
      expect(await runRow(r4)).toMatchObject({ predecessor_run_id: null, skill_invocation: invocation });
      expect(now.skill!.startPending).toBe(false);
    }, 60_000);

    it('keeps the conversation’s language for a turn on the same page without one', async () => {
      const c = await create('alice', { pageId: ids.pages.About, languageId: 1 });
      let now = await turn('alice', c.id, 'Hello', { pageId: ids.pages.About, module: 'page' });
      expect(now.viewContext).toEqual({ pageId: ids.pages.About, languageId: 1, module: 'page' });
      expect((await contextOf(now.lastRunId!)).subject).toEqual({
        pageId: Number(ids.pages.About),
        languageId: 1,
      });
      expect((await approveInChat('alice', now)).status).toBe('IDLE');
      now = await turn('alice', c.id, 'Now the home page', { pageId: ids.pages.Home });
      expect(now.viewContext).toEqual({ pageId: ids.pages.Home, languageId: null, module: 'page' });
      const ctx = await contextOf(now.lastRunId!);
      expect(ctx.subject).toEqual({ pageId: Number(ids.pages.Home), languageId: 0 });
      expect(ctx.messages[0].content).not.toContain('The page language');
    }, 30_000);

    it('names the language in the system prompt only where the user may edit it', async () => {
      const c = await create('dave', { pageId: ids.pages.Home });
      const now = await turn('dave', c.id, 'What is on this page?');
      const system = (await contextOf(now.lastRunId!)).messages[0].content as string;
      expect(system).toContain(`page ${ids.pages.Home}`);
      expect(system).not.toContain('The page language');
    });

    it('sends a non-process skill as reference data on every turn, once', async () => {
      const c = await create('alice', { pageId: ids.pages.Home, languageId: 0, skill: 'tone-of-voice' });
      let now = await turn('alice', c.id, 'Rewrite the intro');
      const ctx = await contextOf(now.lastRunId!);
      expect(ctx.skills).toEqual(['tone-of-voice']);
      expect(ctx.process).toBeNull();
      expect((await approveInChat('alice', now)).status).toBe('IDLE');
      now = await turn('alice', c.id, 'Again');
      expect((await contextOf(now.lastRunId!)).skills).toEqual(['tone-of-voice']);
    }, 30_000);
  });

  describe('dropped processes', () => {
    beforeAll(async () => {
      // bob reads his notices in German: he gets the chat for these tests
      await t.dataSource.query(
        `INSERT INTO group_member (user_id, group_id)
           SELECT u.id, g.id FROM app_user u, access_group g WHERE u.username = 'bob' AND g.name = 'editors'`,
      );
    });

    /** A conversation with a process turn waiting for its approval. */
    async function processStarted(as: string): Promise<Conversation> {
      const c = await create(as, { pageId: ids.pages.About, languageId: 0, skill: 'seo-process' });
      const now = await turn(as, c.id, 'Optimise this page');
      expect(now.status).toBe('AWAITING_APPROVAL');
      return now;
    }

    const causes: Record<string, (as: string) => Promise<{ c: Conversation; undo?: () => Promise<void> }>> = {
      DETACHED: async (as) => {
        const c = await processStarted(as);
        await t.dataSource.query(`UPDATE skill SET enabled = false WHERE identifier = 'seo-process'`);
        return { c, undo: async () => void (await t.dataSource.query(`UPDATE skill SET enabled = true`)) };
      },
      CONFIGURATION_CHANGED: async (as) => {
        const c = await processStarted(as);
        await t.dataSource.query(
          `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'demo-question')
            WHERE identifier = 'default'`,
        );
        return {
          c,
          undo: async () =>
            void (await t.dataSource.query(
              `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'demo-editor')
                WHERE identifier = 'default'`,
            )),
        };
      },
      PREDECESSOR_GONE: async (as) => {
        const started = await processStarted(as);
        const c = await approveInChat(as, started);
        await t.dataSource.query('DELETE FROM run WHERE id = $1', [c.lastRunId]);
        return { c };
      },
      REFUSED_TOO_OFTEN: async (as) => {
        // each new message withdraws the waiting proposal: three turns in a row not continued
        let c = await processStarted(as);
        for (let i = 0; i < 2; i += 1) {
          c = await turn(as, c.id, `Something else ${i}`);
          expect(c.status).toBe('AWAITING_APPROVAL');
          expect((await runRow(c.lastRunId!)).dropped_process).toBeNull();
        }
        return { c };
      },
    };

    const texts: Record<string, Record<string, string>> = {
      en: {
        DETACHED: 'its skill is no longer available',
        CONFIGURATION_CHANGED: 'different configuration',
        PREDECESSOR_GONE: 'no longer available',
        REFUSED_TOO_OFTEN: 'three times in a row',
      },
      de: {
        DETACHED: 'nicht mehr verfügbar',
        CONFIGURATION_CHANGED: 'anderen Konfiguration',
        PREDECESSOR_GONE: 'nicht mehr verfügbar',
        REFUSED_TOO_OFTEN: 'dreimal hintereinander',
      },
    };

    for (const reason of Object.keys(causes)) {
      for (const [as, locale] of [
        ['alice', 'en'],
        ['bob', 'de'],
      ] as const) {
        it(`${reason}: one notice before the answer, in ${locale} for ${as}, never sent to the model`, async () => {
          const { c, undo } = await causes[reason]!(as);
          let dropped: Conversation;
          try {
            dropped = await turn(as, c.id, 'Continue please');
          } finally {
            await undo?.();
          }
          const run = dropped.lastRunId!;
          expect((await runRow(run)).dropped_process).toEqual({ reason });
          expect((await runRow(run)).process_pin).toBeNull();
          expect(await stepKinds(run)).toContain('DROPPED');
          const notices = dropped.messages.filter((m) => m.notice === 'PROCESS_DROPPED');
          expect(notices).toHaveLength(1);
          expect(notices[0]!.noticeArgs).toEqual({ reason });
          expect(notices[0]!.text).toContain(texts[locale]![reason]!);
          // the notice comes right after the user's message of that turn, before any answer
          const userIndex = dropped.messages.findIndex((m) => m.role === 'USER' && m.runId === run);
          expect(dropped.messages[userIndex + 1]!.notice).toBe('PROCESS_DROPPED');
          // the run's own view
          const seen = await t.gql<{ run: { droppedProcess: { reason: string } | null } }>(
            `query($id: ID!) { run(id: $id) { droppedProcess { reason } } }`,
            { id: run },
            as,
          );
          expect(seen.data!.run.droppedProcess).toEqual({ reason });
          // neither this turn's model input nor the next one's holds the notice
          let next = dropped;
          if (next.status === 'AWAITING_APPROVAL') next = await approveInChat(as, next);
          if (next.status === 'AWAITING_INPUT') {
            const input = {
              conversationId: c.id,
              turnDigest: next.pending!.turnDigest,
              values: { tone: 'casual' },
            };
            expect((await t.gql(SUBMIT, { input }, as)).errors).toBeUndefined();
            expect((await rest(as, c.id)).status).toBe('IDLE');
          }
          next = await turn(as, c.id, 'And now?');
          expect((await runRow(next.lastRunId!)).dropped_process).toBeNull();
          for (const r of [run, next.lastRunId!]) {
            const input = JSON.stringify((await contextOf(r)).messages);
            expect(input).not.toContain(notices[0]!.text);
            expect(input).not.toContain('PROCESS_DROPPED');
          }
          expect(next.messages.filter((m) => m.notice === 'PROCESS_DROPPED')).toHaveLength(1);
        }, 60_000);
      }
    }
  });

  describe('decisions in the chat', () => {
    it('answers APPROVAL_STILL_PENDING for a waiting non-process run, and writes nothing', async () => {
      const c = await create('alice', { pageId: ids.pages.Home, languageId: 0 });
      const waiting = await turn('alice', c.id, 'Fix the title');
      expect(waiting.status).toBe('AWAITING_APPROVAL');
      const before = await counts();
      expect(codeOf(await send('alice', c.id, 'hello?'))).toBe('APPROVAL_STILL_PENDING');
      expect(await counts()).toEqual(before);
      expect((await get('alice', c.id)).status).toBe('AWAITING_APPROVAL');
    });

    it('withdraws a waiting process proposal when a new message comes (guarded cancel)', async () => {
      const c = await create('alice', { pageId: ids.pages.About, languageId: 0, skill: 'seo-process' });
      const waiting = await turn('alice', c.id, 'Optimise');
      const r1 = waiting.lastRunId!;
      const next = await turn('alice', c.id, 'Actually, do something else');
      expect((await runRow(r1)).status).toBe('CANCELLED');
      expect(next.messages.filter((m) => m.notice === 'PROPOSAL_WITHDRAWN')).toHaveLength(1);
      expect(await runRow(next.lastRunId!)).toMatchObject({ predecessor_run_id: r1 });
    });

    it('refuses NOT_AWAITING_APPROVAL, NOT_AWAITING_INPUT and someone else’s conversation', async () => {
      const c = await create('alice', { pageId: ids.pages.Home });
      const idle = await t.gql(
        DECIDE,
        { input: { conversationId: c.id, turnDigest: 'x', approve: true } },
        'alice',
      );
      expect(codeOf(idle)).toBe('NOT_AWAITING_APPROVAL');
      const waiting = await turn('alice', c.id, 'Fix the title');
      const submit = await t.gql(
        SUBMIT,
        { input: { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, values: {} } },
        'alice',
      );
      expect(codeOf(submit)).toBe('NOT_AWAITING_INPUT');
      for (const query of [DECIDE]) {
        const res = await t.gql(
          query,
          { input: { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true } },
          'carol',
        );
        expect(codeOf(res)).toBe('NOT_FOUND');
      }
      expect(codeOf(await send('carol', c.id, 'hi'))).toBe('NOT_FOUND');
      expect((await t.gql<{ conversation: null }>(GET, { id: c.id }, 'carol')).data?.conversation).toBeNull();
      expect((await runRow(waiting.lastRunId!)).status).toBe('WAITING_FOR_APPROVAL');
    });

    it('refuses picks, turns and decisions that do not apply, and changes nothing', async () => {
      const erin = await create('erin', { pageId: ids.pages.Blog, languageId: 0, skill: 'tone-of-voice' });
      const alice = await create('alice', { pageId: ids.pages.Home });
      const snapshot = async () => ({
        counts: await counts(),
        rows: await t.dataSource.query(
          `SELECT id, status, skill_identifier, skill_start_pending, last_run_id, active_run_id, updated_at
             FROM conversation WHERE id = ANY($1::uuid[]) ORDER BY id`,
          [[erin.id, alice.id]],
        ),
        decisions: (await t.dataSource.query('SELECT count(*)::int AS n FROM decision'))[0].n,
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
          { conversationId: alice.id, text: 'hi', viewContext: { pageId: ids.pages.Home, languageId: 2 } },
          'LANGUAGE_NOT_ACCESSIBLE',
        ],
      ];
      for (const [as, query, input, code] of cases) {
        const before = await snapshot();
        expect([input, codeOf(await t.gql(query, { input }, as))]).toEqual([input, code]);
        expect(await snapshot()).toEqual(before);
      }
      // the chat configuration switched off: a turn is refused before anything is queued
      await t.dataSource.query(`UPDATE configuration SET is_active = false WHERE identifier = 'demo-editor'`);
      try {
        const before = await snapshot();
        expect(codeOf(await send('alice', alice.id, 'hello'))).toBe('CONFIGURATION_INACTIVE');
        expect(await snapshot()).toEqual(before);
      } finally {
        await t.dataSource.query(
          `UPDATE configuration SET is_active = true WHERE identifier = 'demo-editor'`,
        );
      }
    });

    it('refuses a second chat decision while the first is carried out (DECISION_IN_FLIGHT), changing nothing', async () => {
      await upsertConfiguration(t, {
        identifier: 'slow-approval',
        providerOptions: {
          rounds: [
            { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Slowly' } }] },
            { text: 'Done slowly.', delayMs: 1500 },
          ],
        },
      });
      await withDefaultTask('slow-approval', async () => {
        const c = await create('alice', { pageId: ids.pages.Home });
        const waiting = await turn('alice', c.id, 'Change the title');
        const input = { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true };
        expect((await t.gql(DECIDE, { input }, 'alice')).errors).toBeUndefined();
        const before = await counts();
        const [{ n: decisions }] = await t.dataSource.query('SELECT count(*)::int AS n FROM decision');
        expect(codeOf(await t.gql(DECIDE, { input }, 'alice'))).toBe('DECISION_IN_FLIGHT');
        expect(await counts()).toEqual(before);
        expect((await t.dataSource.query('SELECT count(*)::int AS n FROM decision'))[0].n).toBe(decisions);
        expect((await rest('alice', c.id)).status).toBe('IDLE');
      });
    }, 30_000);

    it('lets exactly one of two concurrent chat decisions through', async () => {
      const c = await create('alice', { pageId: ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const input = { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true };
      const results = await Promise.all([
        t.gql(DECIDE, { input }, 'alice'),
        t.gql(DECIDE, { input }, 'alice'),
      ]);
      const ok = results.filter((r) => !r.errors);
      const refused = results.filter((r) => r.errors).map(codeOf);
      expect(ok).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(['DECISION_IN_FLIGHT', 'ALREADY_RESUMING', 'NOT_AWAITING_APPROVAL']).toContain(refused[0]);
      const done = await rest('alice', c.id);
      expect(done.status).toBe('IDLE');
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM decision WHERE run_id = $1', [
        waiting.lastRunId,
      ]);
      expect(n).toBe(1);
      expect(done.messages.filter((m) => m.role === 'ASSISTANT')).toHaveLength(1);
    });

    it('answers a question through submitConversationInput, checking the values first', async () => {
      await withDefaultTask('demo-question', async () => {
        const c = await create('alice', { pageId: ids.pages.Home });
        const waiting = await turn('alice', c.id, 'Write me a greeting');
        expect(waiting.status).toBe('AWAITING_INPUT');
        expect(waiting.pending!.kind).toBe('INPUT');
        const bad = await t.gql(
          SUBMIT,
          {
            input: {
              conversationId: c.id,
              turnDigest: waiting.pending!.turnDigest,
              values: { tone: 'rude' },
            },
          },
          'alice',
        );
        expect(codeOf(bad)).toBe('INVALID_INPUT');
        expect((await get('alice', c.id)).status).toBe('AWAITING_INPUT');
        const good = await t.gql<{ submitConversationInput: Conversation }>(
          SUBMIT,
          {
            input: {
              conversationId: c.id,
              turnDigest: waiting.pending!.turnDigest,
              values: { tone: 'formal' },
            },
          },
          'alice',
        );
        expect(good.data!.submitConversationInput.status).toBe('PROCESSING');
        const done = await rest('alice', c.id);
        expect(done.status).toBe('IDLE');
        expect(done.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
      });
    });

    it('says RUN_FINISHED_OUTSIDE when the run was approved in the inbox meanwhile', async () => {
      const c = await create('alice', { pageId: ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const runId = waiting.lastRunId!;
      // bob approves the same (non-process) run in his inbox
      const approved = await t.gql(
        APPROVE,
        { input: { runId, turnDigest: await digestOf(t, runId) } },
        'bob',
      );
      expect(approved.errors).toBeUndefined();
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      // alice still has the card open and decides it in the chat
      const res = await t.gql(
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
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM decision WHERE run_id = $1', [
        runId,
      ]);
      expect(n).toBe(1);
    });

    it('turns a hand-back from the worker into a notice and waits again', async () => {
      const c = await create('alice', { pageId: ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const runId = waiting.lastRunId!;
      // the state a chat decision leaves before a worker hands it back
      await t.dataSource.query(
        `UPDATE conversation SET status = 'PROCESSING', deciding = true WHERE id = $1`,
        [c.id],
      );
      await t.dataSource.query(
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

  describe('busy turns and repairs', () => {
    it('refuses a skill pick while a turn runs (CONVERSATION_BUSY) and keeps the skill after the turn', async () => {
      await upsertConfiguration(t, {
        identifier: 'slow-chat',
        providerOptions: { rounds: [{ text: 'Done.', delayMs: 1500 }] },
      });
      await withDefaultTask('slow-chat', async () => {
        const c = await create('alice', { pageId: ids.pages.Home });
        const sent = await send('alice', c.id, 'Take your time');
        expect(sent.data!.sendMessage.status).toBe('PROCESSING');
        const before = await counts();
        const pick = await t.gql(
          SET_SKILL,
          { input: { conversationId: c.id, skill: 'seo-process' } },
          'alice',
        );
        expect(codeOf(pick)).toBe('CONVERSATION_BUSY');
        expect(codeOf(await send('alice', c.id, 'another'))).toBe('CONVERSATION_BUSY');
        expect(await counts()).toEqual(before);
        const done = await rest('alice', c.id);
        expect(done.status).toBe('IDLE');
        expect(done.skill).toBeNull();
        expect(done.messages.map((m) => [m.role, m.text])).toEqual([
          ['USER', 'Take your time'],
          ['ASSISTANT', 'Done.'],
        ]);
      });
    }, 30_000);

    it('repairs a conversation stuck in PROCESSING from its run’s status when read', async () => {
      const c = await create('alice', { pageId: ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const done = await approveInChat('alice', waiting);
      // a process that died between the run's settle and the conversation's update
      await t.dataSource.query(
        `UPDATE conversation SET status = 'PROCESSING', active_run_id = $2 WHERE id = $1`,
        [c.id, done.lastRunId],
      );
      const repaired = await get('alice', c.id);
      expect(repaired.status).toBe('IDLE');
      expect(repaired.messages.length).toBeGreaterThan(done.messages.length);
      expect(await send('alice', c.id, 'Next')).toMatchObject({
        data: { sendMessage: { status: 'PROCESSING' } },
      });
    });
  });

  describe('conversationEvents', () => {
    it('streams MESSAGE, STATUS and PROGRESS to the owner only', async () => {
      const c = await create('alice', { pageId: ids.pages.Home });
      const other = collect<unknown>(t.ws('carol'), EVENTS, { id: c.id });
      await other.done;
      expect(JSON.stringify(other.errors)).toContain('NOT_FOUND');

      type Frame = {
        conversationEvents: {
          kind: string;
          status: string;
          stepCount: number | null;
          message: { role: string } | null;
        };
      };
      const mine = collect<Frame>(t.ws('alice'), EVENTS, { id: c.id });
      await new Promise((r) => setTimeout(r, 200));
      await send('alice', c.id, 'Fix the title');
      await until(
        () =>
          mine.events.some(
            (e) =>
              e.conversationEvents.kind === 'STATUS' && e.conversationEvents.status === 'AWAITING_APPROVAL',
          ),
        15_000,
        'AWAITING_APPROVAL on the stream',
      );
      mine.unsubscribe();
      const frames = mine.events.map((e) => e.conversationEvents);
      expect(frames.find((f) => f.kind === 'MESSAGE')?.message?.role).toBe('USER');
      expect(frames.some((f) => f.kind === 'STATUS' && f.status === 'PROCESSING')).toBe(true);
      const progress = frames.filter((f) => f.kind === 'PROGRESS').map((f) => f.stepCount!);
      expect(progress.length).toBeGreaterThan(0);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    });
  });
});
