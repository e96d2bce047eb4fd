// The authorisation suite, pages, users and tokens (test/support/authorization-fixture.ts
// builds the fixture and says what the suite is): pages a user may not show are null, as an
// unknown id, and reach no run, conversation or turn; admin operations are FORBIDDEN to
// others; another user's tokens are NOT_FOUND, as a user that does not exist; nothing in the
// database changes.
import { randomUUID } from 'node:crypto';
import { describeAuthorization } from '../support/authorization-fixture';
import {
  CREATE_CONVERSATION,
  expectHidden,
  expectRefused,
  Json,
  NON_ADMINS,
  REVOKE,
  SEND,
  shapeOf,
  START,
  User,
  USERS,
} from '../support/authorization-rules';

const PAGE = `query($id: ID!) { page(id: $id) { id slug title text { title body seoTitle } children { id } } }`;
const CREATE_TOKEN = `mutation($userId: ID!) { createApiToken(userId: $userId, label: "intrusion") { tokenId token } }`;

// why: these tests try no runs; erin's conversation and the demo tokens are enough.
describeAuthorization({ runs: false }, (fx) => {
  const { gql, unchanged, editor } = fx;

  describe('pages', () => {
    /** demo-data.md: the Demo site for every group but restricted (Blog and below); Orphan for admins. */
    const mayShow = (as: User, page: string): boolean => {
      if (as === 'admin') return true;
      if (page === 'Orphan') return false;
      if (as === 'erin') return page === 'Blog' || page === 'Launch';
      return true;
    };

    it.each(USERS)(
      'page(id) as %s: null where they may not show it, the same as an unknown id',
      async (as) => {
        const unknown = await gql(PAGE, { id: '999999' }, as);
        expectHidden(unknown, 'page', `${as} reads an unknown page`);
        for (const [name, id] of Object.entries(fx.ids.pages)) {
          const res = await gql<{ page: { id: string; children: Array<{ id: string }> } | null }>(
            PAGE,
            { id },
            as,
          );
          if (!mayShow(as, name)) {
            expectHidden(res, 'page', `${as} reads ${name}`);
            continue;
          }
          expect({ page: name, errors: res.errors }).toEqual({ page: name, errors: undefined });
          const shown = new Set(
            Object.entries(fx.ids.pages)
              .filter(([n]) => mayShow(as, n))
              .map(([, i]) => i),
          );
          expect(res.data!.page!.children.filter((c) => !shown.has(c.id))).toEqual([]);
        }
      },
    );

    it('erin cannot reach a page outside her subtree through a run, a conversation or a turn; nothing is written', async () => {
      const erin = fx.conversations.find((c) => c.owner === 'erin')!;
      await unchanged(async () => {
        for (const page of ['Home', 'About', 'Orphan']) {
          const start = await gql(
            START,
            { input: { configurationId: editor(), prompt: 'read it', subjectPageId: fx.ids.pages[page] } },
            'erin',
          );
          expectRefused(start, 'NOT_FOUND', `erin starts a run about ${page}`);
          const create = await gql(CREATE_CONVERSATION, { input: { pageId: fx.ids.pages[page] } }, 'erin');
          expectRefused(create, 'PAGE_NOT_ACCESSIBLE', `erin chats about ${page}`);
          const send = await gql(
            SEND,
            {
              input: {
                conversationId: erin.id,
                text: 'and this one?',
                viewContext: { pageId: fx.ids.pages[page] },
              },
            },
            'erin',
          );
          expectRefused(send, 'PAGE_NOT_ACCESSIBLE', `erin turns to ${page}`);
        }
      });
    });
  });

  describe('users and tokens', () => {
    const ADMIN_ONLY: Array<[string, string, Json]> = [
      ['users', '{ users { id username } }', {}],
      ['groups', '{ groups { id name grants } }', {}],
      ['tasks', '{ tasks { id identifier } }', {}],
      ['workerStatus', '{ workerStatus { healthy queued } }', {}],
      ['auditEvents', '{ auditEvents { id action } }', {}],
      [
        'createUser',
        'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }',
        { input: { username: 'intruder', isAdmin: true } },
      ],
      [
        'upsertConfiguration',
        'mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }',
        {
          input: {
            identifier: 'demo-editor',
            name: 'hijacked',
            provider: 'scripted',
            model: 'x',
            isActive: false,
          },
        },
      ],
      [
        'upsertSkill',
        'mutation($input: SkillInput!) { upsertSkill(input: $input) { id } }',
        { input: { identifier: 'tone-of-voice', name: 'hijacked', body: 'Obey me.' } },
      ],
      [
        'upsertTask',
        'mutation($input: TaskInput!) { upsertTask(input: $input) { id } }',
        { input: { identifier: 'default', name: 'hijacked', configurationIdentifier: 'demo-inactive' } },
      ],
    ];

    it.each(NON_ADMINS)('admin operations as %s: FORBIDDEN, nothing written', async (as) => {
      await unchanged(async () => {
        for (const [operation, query, variables] of ADMIN_ONLY) {
          expectRefused(await gql(query, variables, as), 'FORBIDDEN', `${as}: ${operation}`);
        }
      });
    });

    it.each(NON_ADMINS)(
      'createApiToken for another user as %s: NOT_FOUND, as for a user that does not exist',
      async (as) => {
        await unchanged(async () => {
          const ghost = await gql(CREATE_TOKEN, { userId: '999999' }, as);
          expectRefused(ghost, 'NOT_FOUND', `${as} creates a token for nobody`);
          for (const other of USERS.filter((u) => u !== as)) {
            const res = await gql(CREATE_TOKEN, { userId: fx.ids.users[other] }, as);
            expectRefused(res, 'NOT_FOUND', `${as} creates a token for ${other}`);
            expect(shapeOf(res)).toEqual(shapeOf(ghost));
          }
        });
      },
    );

    it.each(NON_ADMINS)(
      'apiTokens and revokeApiTokens of another user as %s: NOT_FOUND, as for a user that does not exist',
      async (as) => {
        await unchanged(async () => {
          const LIST = `query($userId: ID) { apiTokens(userId: $userId) { id } }`;
          const REVOKE_ALL = `mutation($userId: ID!) { revokeApiTokens(userId: $userId) }`;
          const ghosts = [
            await gql(LIST, { userId: '999999' }, as),
            await gql(REVOKE_ALL, { userId: '999999' }, as),
          ];
          for (const ghost of ghosts) expectRefused(ghost, 'NOT_FOUND', `${as} names nobody`);
          for (const other of USERS.filter((u) => u !== as)) {
            const list = await gql(LIST, { userId: fx.ids.users[other] }, as);
            expectRefused(list, 'NOT_FOUND', `${as} lists ${other}’s tokens`);
            expect(shapeOf(list)).toEqual(shapeOf(ghosts[0]!));
            const revoke = await gql(REVOKE_ALL, { userId: fx.ids.users[other] }, as);
            expectRefused(revoke, 'NOT_FOUND', `${as} revokes all of ${other}’s tokens`);
            expect(shapeOf(revoke)).toEqual(shapeOf(ghosts[1]!));
          }
        });
      },
    );

    it('createApiToken for another user as admin: FORBIDDEN (such tokens come from the command line)', async () => {
      await unchanged(async () => {
        for (const other of NON_ADMINS) {
          const res = await gql(CREATE_TOKEN, { userId: fx.ids.users[other] }, 'admin');
          expectRefused(res, 'FORBIDDEN', `admin creates a token for ${other}`);
        }
      });
    });

    it.each(NON_ADMINS)(
      'revokeApiToken of another user’s token as %s: NOT_FOUND; the token keeps working',
      async (as) => {
        await unchanged(async () => {
          const ghost = await gql(REVOKE, { id: randomUUID() }, as);
          expectRefused(ghost, 'NOT_FOUND', `${as} revokes an unknown token`);
          for (const other of USERS.filter((u) => u !== as)) {
            const res = await gql(REVOKE, { id: fx.tokenIds[other] }, as);
            expectRefused(res, 'NOT_FOUND', `${as} revokes ${other}’s token`);
            expect(shapeOf(res)).toEqual(shapeOf(ghost));
          }
        });
        for (const other of USERS.filter((u) => u !== as)) {
          const viewer = await gql<{ viewer: { user: { username: string } } }>(
            '{ viewer { user { username } } }',
            {},
            other,
          );
          expect(viewer.data?.viewer.user.username).toBe(other);
        }
      },
    );
  });
});
