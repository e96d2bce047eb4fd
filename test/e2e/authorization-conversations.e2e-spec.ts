// The authorisation suite, conversations (test/support/authorization-fixture.ts builds the
// fixture and says what the suite is): every demo user reads, lists, acts in and watches
// conversations that are not theirs by id: hidden (null or NOT_FOUND) from other users,
// FORBIDDEN for admins (who may read any), CHAT_NOT_ALLOWED without the CHAT grant; nothing in
// the database changes.
import { randomUUID } from 'node:crypto';
import { describeAuthorization } from '../support/authorization-fixture';
import {
  CHAT_USERS,
  codesIn,
  CONVERSATION,
  CONVERSATION_EVENTS,
  conversationAccessOf,
  CREATE_CONVERSATION,
  DECIDE_IN_CHAT,
  expectHidden,
  expectRefused,
  Json,
  NON_ADMINS,
  SEND,
  SET_SKILL,
  shapeOf,
  unauthenticatedIn,
  User,
  USERS,
} from '../support/authorization-rules';
import { collect } from '../support/runs';

const CONVERSATIONS = `{ conversations { id owner { username } } }`;
type ConversationView = { conversation: { id: string; owner: { username: string } } | null };
const SUBMIT_IN_CHAT = `mutation($input: SubmitConversationInputInput!) { submitConversationInput(input: $input) { id status } }`;

// why: these tests try no runs; the conversations (and the chat turn of alice's) are enough.
describeAuthorization({ runs: false }, (fx) => {
  const { gql, wsOf, unchanged, foreignConversations } = fx;

  describe('conversations by id', () => {
    it.each(USERS)(
      'conversation(id) as %s: null for others’ (admins read any), CHAT_NOT_ALLOWED without the chat',
      async (as) => {
        for (const c of foreignConversations(as)) {
          const what = `${as} reads ${c.name}`;
          const res = await gql<ConversationView>(CONVERSATION, { id: c.id }, as);
          switch (conversationAccessOf(as, c.owner)) {
            case 'no-chat':
              expectRefused(res, 'CHAT_NOT_ALLOWED', what);
              break;
            case 'none':
              expectHidden(res, 'conversation', what);
              break;
            case 'read':
              expect(res.errors).toBeUndefined();
              expect(res.data!.conversation).toMatchObject({ id: c.id, owner: { username: c.owner } });
              break;
            case 'owner':
              throw new Error('not a foreign conversation');
          }
        }
      },
    );

    it.each(USERS)(
      'conversations as %s: the viewer’s own only (without CHAT: no chat at all)',
      async (as) => {
        const res = await gql<{ conversations: Array<{ id: string; owner: { username: string } }> }>(
          CONVERSATIONS,
          {},
          as,
        );
        if (!CHAT_USERS.has(as) && as !== 'admin') {
          expectRefused(res, 'CHAT_NOT_ALLOWED', `${as} lists conversations`);
          await unchanged(async () => {
            const catalogue = await gql('{ skillCatalogue { identifier } }', {}, as);
            expectRefused(catalogue, 'CHAT_NOT_ALLOWED', `${as} reads the skill catalogue`);
            const created = await gql(CREATE_CONVERSATION, { input: { title: 'mine' } }, as);
            expectRefused(created, 'CHAT_NOT_ALLOWED', `${as} starts a conversation`);
          });
          return;
        }
        expect(res.errors).toBeUndefined();
        const listed = res.data!.conversations;
        expect(listed.filter((c) => c.owner.username !== as)).toEqual([]);
        expect(listed.map((c) => c.id)).toEqual(
          expect.arrayContaining(fx.conversations.filter((c) => c.owner === as).map((c) => c.id)),
        );
      },
    );

    /** The chat's mutations on every foreign conversation: refused, and nothing changes. */
    async function chatActionsRefused(as: User): Promise<void> {
      await unchanged(async () => {
        for (const c of foreignConversations(as)) {
          const access = conversationAccessOf(as, c.owner);
          const expected =
            access === 'no-chat' ? 'CHAT_NOT_ALLOWED' : access === 'read' ? 'FORBIDDEN' : 'NOT_FOUND';
          const attempts: Array<[string, string, Json]> = [
            ['sendMessage', SEND, { conversationId: c.id, text: 'intrusion' }],
            [
              'sendMessage with a view',
              SEND,
              { conversationId: c.id, text: 'intrusion', viewContext: { pageId: fx.ids.pages.Blog } },
            ],
            ['setConversationSkill', SET_SKILL, { conversationId: c.id, skill: 'tone-of-voice' }],
            ['setConversationSkill (remove)', SET_SKILL, { conversationId: c.id, skill: null }],
            [
              'decideConversationApproval',
              DECIDE_IN_CHAT,
              { conversationId: c.id, turnDigest: c.digest, approve: true },
            ],
            [
              'decideConversationApproval (deny)',
              DECIDE_IN_CHAT,
              { conversationId: c.id, turnDigest: c.digest, approve: false },
            ],
            [
              'submitConversationInput',
              SUBMIT_IN_CHAT,
              { conversationId: c.id, turnDigest: c.digest, values: { tone: 'formal' } },
            ],
          ];
          for (const [operation, query, input] of attempts) {
            const res = await gql(query, { input }, as);
            expectRefused(res, expected, `${as}: ${operation} on ${c.name}`);
            if (access === 'none' && c.owner !== null) {
              const ghost = await gql(query, { input: { ...input, conversationId: randomUUID() } }, as);
              expect(shapeOf(res)).toEqual(shapeOf(ghost));
            }
          }
        }
      });
    }

    /** conversationEvents on every foreign conversation: refused at the start, no event. */
    async function conversationEventsRefused(as: User): Promise<void> {
      for (const c of foreignConversations(as)) {
        const access = conversationAccessOf(as, c.owner);
        const expected =
          access === 'no-chat' ? 'CHAT_NOT_ALLOWED' : access === 'read' ? 'FORBIDDEN' : 'NOT_FOUND';
        const stream = collect(wsOf(as), CONVERSATION_EVENTS, { id: c.id });
        await stream.done;
        const what = `${as} watches ${c.name}`;
        expect({ what, events: stream.events, codes: unauthenticatedIn(stream.errors) }).toEqual({
          what,
          events: [],
          codes: [expected],
        });
      }
    }

    it.each(NON_ADMINS)(
      'sendMessage, setConversationSkill, decide and submit in the chat as %s: refused; nothing changes',
      (as) => chatActionsRefused(as),
    );

    it.each(NON_ADMINS)('conversationEvents as %s: refused at the start, no event', (as) =>
      conversationEventsRefused(as),
    );

    // why: admins may read any conversation by id, so they know it exists: acting in someone
    // else's is FORBIDDEN (docs/security.md), not NOT_FOUND.
    it('as admin: acting in or watching another’s conversation is FORBIDDEN', async () => {
      await chatActionsRefused('admin');
      await conversationEventsRefused('admin');
    });

    it('as admin, acting in or watching another’s conversation is refused today, and changes nothing', async () => {
      await unchanged(async () => {
        for (const c of foreignConversations('admin')) {
          const sent = await gql(SEND, { input: { conversationId: c.id, text: 'intrusion' } }, 'admin');
          expect(codesIn(sent.errors)).toHaveLength(1);
          expect(['FORBIDDEN', 'NOT_FOUND']).toContain(codesIn(sent.errors)[0]);
          expect(sent.data ?? null).toBeNull();
          const decided = await gql(
            DECIDE_IN_CHAT,
            { input: { conversationId: c.id, turnDigest: c.digest, approve: true } },
            'admin',
          );
          expect(decided.data ?? null).toBeNull();
          expect(['FORBIDDEN', 'NOT_FOUND']).toContain(codesIn(decided.errors)[0]);
          const stream = collect(wsOf('admin'), CONVERSATION_EVENTS, { id: c.id });
          await stream.done;
          expect(stream.events).toEqual([]);
          expect(['FORBIDDEN', 'NOT_FOUND']).toContain(codesIn(stream.errors)[0]);
        }
      });
    });
  });
});
