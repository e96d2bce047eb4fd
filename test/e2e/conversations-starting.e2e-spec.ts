import { CATALOGUE, CREATE, codeOf, useChatApp } from '../support/conversations';
import { bootTestApp } from '../support/test-app';

// Starting a chat (docs/chat-and-skills.md) through the public API, on the demo data: the skill
// catalogue, the checks a start passes in order, the languages the page picker offers, and the
// cap on active conversations.

describe('conversations and skills', () => {
  const chat = useChatApp();
  const { counts, create } = chat;

  describe('the skill catalogue', () => {
    it('lists the enabled skills of the chat configuration and Task, deduplicated; CHAT only', async () => {
      for (const user of ['alice', 'dave', 'erin']) {
        const res = await chat.t.gql<{ skillCatalogue: Array<Record<string, unknown>> }>(CATALOGUE, {}, user);
        expect(res.errors).toBeUndefined();
        expect(res.data!.skillCatalogue.map((e) => [e.identifier, e.isProcess, e.skillId])).toEqual([
          ['seo-process', true, String(chat.skillIds['seo-process'])],
          ['tone-of-voice', false, String(chat.skillIds['tone-of-voice'])],
        ]);
      }
      // bob (approvers) has no CHAT grant
      expect(codeOf(await chat.t.gql(CATALOGUE, {}, 'bob'))).toBe('CHAT_NOT_ALLOWED');
    });

    it('adds the Task’s own skills once', async () => {
      await chat.t.dataSource.query(
        `INSERT INTO task_skill (task_id, skill_id)
           SELECT t.id, s.id FROM task t, skill s WHERE t.identifier = 'default' AND s.identifier = 'tone-of-voice'`,
      );
      try {
        const res = await chat.t.gql<{ skillCatalogue: Array<{ identifier: string }> }>(
          CATALOGUE,
          {},
          'alice',
        );
        expect(res.data!.skillCatalogue.map((e) => e.identifier)).toEqual(['seo-process', 'tone-of-voice']);
      } finally {
        await chat.t.dataSource.query(`DELETE FROM task_skill`);
      }
    });
  });

  describe('starting a conversation', () => {
    it('refuses by checks 1-5 in order and creates nothing on a refusal', async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['erin', { pageId: chat.ids.pages.About }, 'PAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: '999999' }, 'PAGE_NOT_ACCESSIBLE'],
        ['dave', { pageId: chat.ids.pages.Home, languageId: 1 }, 'LANGUAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: chat.ids.pages.Home, languageId: 2 }, 'LANGUAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: chat.ids.pages.Orphan, languageId: 0 }, 'PAGE_NOT_ACCESSIBLE'],
        // a page outside every site has language 0 only
        ['admin', { pageId: chat.ids.pages.Orphan, languageId: 1 }, 'LANGUAGE_NOT_ACCESSIBLE'],
        ['alice', { pageId: chat.ids.pages.Home, languageId: 0, skill: 'legacy-skill' }, 'SKILL_UNKNOWN'],
        ['alice', { skill: 'no-such-skill' }, 'SKILL_UNKNOWN'],
        [
          'erin',
          { pageId: chat.ids.pages.Blog, languageId: 0, skill: 'seo-process' },
          'SKILL_SECOND_APPROVER',
        ],
        // check order: the page is refused before the skill
        ['erin', { pageId: chat.ids.pages.About, skill: 'legacy-skill' }, 'PAGE_NOT_ACCESSIBLE'],
        [
          'alice',
          { pageId: chat.ids.pages.Home, languageId: 2, skill: 'legacy-skill' },
          'LANGUAGE_NOT_ACCESSIBLE',
        ],
        ['bob', { pageId: chat.ids.pages.Home }, 'CHAT_NOT_ALLOWED'],
      ];
      for (const [user, input, code] of cases) {
        const before = await counts();
        const res = await chat.t.gql(CREATE, { input }, user);
        expect([user, input, codeOf(res)]).toEqual([user, input, code]);
        expect(await counts()).toEqual(before);
      }
    });

    it('starts where the checks pass, keeping the language only with a page', async () => {
      const orphan = await create('admin', { pageId: chat.ids.pages.Orphan, languageId: 0 });
      expect(orphan.viewContext).toEqual({ pageId: chat.ids.pages.Orphan, languageId: 0, module: null });
      expect(orphan.status).toBe('IDLE');
      expect(orphan.messages).toEqual([]);

      const tone = await create('erin', {
        pageId: chat.ids.pages.Blog,
        languageId: 0,
        skill: 'tone-of-voice',
      });
      expect(tone.skill).toEqual({
        identifier: 'tone-of-voice',
        skillId: String(chat.skillIds['tone-of-voice']),
        isProcess: false,
        startPending: false,
      });

      const noPage = await create('alice', { languageId: 1, title: 'Questions' });
      expect(noPage.viewContext).toEqual({ pageId: null, languageId: null, module: null });
      expect(noPage.title).toBe('Questions');

      const process = await create('alice', {
        pageId: chat.ids.pages.About,
        languageId: 1,
        skill: 'seo-process',
      });
      expect(process.skill).toMatchObject({ identifier: 'seo-process', isProcess: true, startPending: true });
      const [{ n }] = await chat.t.dataSource.query(
        'SELECT count(*)::int AS n FROM run WHERE owner_id = $1',
        [Number(chat.ids.users.alice)],
      );
      expect(n).toBe(0);
    });

    it('tells the page picker which languages a user may start in (Page.editableLanguages)', async () => {
      const query = `query($id: ID!) { page(id: $id) { editableLanguages { id languageId isoCode } } }`;
      const cases: Array<[string, string, number[]]> = [
        ['alice', chat.ids.pages.About!, [0, 1]],
        ['dave', chat.ids.pages.About!, []],
        ['erin', chat.ids.pages.Blog!, [0]],
        ['admin', chat.ids.pages.Home!, [0, 1, 2]],
        ['admin', chat.ids.pages.Orphan!, [0]],
      ];
      for (const [as, pageId, expected] of cases) {
        const res = await chat.t.gql<{
          page: { editableLanguages: Array<{ id: string; languageId: number }> };
        }>(query, { id: pageId }, as);
        expect([as, pageId, res.data!.page.editableLanguages.map((l) => l.languageId)]).toEqual([
          as,
          pageId,
          expected,
        ]);
        // every language offered is one a start accepts
        for (const languageId of expected.filter(() => as !== 'admin')) {
          expect((await chat.t.gql(CREATE, { input: { pageId, languageId } }, as)).errors).toBeUndefined();
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
});
