import { createHash } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TokensService } from '../../src/modules/auth';
import { RequestContext } from '../../src/platform/auth/request-context';
import { errorCode, GqlResponse, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { refusalsIn } from '../support/authorization-rules';
import { INBOX_CHANGED } from '../support/decisions';
import { collect } from '../support/runs';
import type { ApiTokenCreated, User } from '../support/generated/schema';

const VIEWER = '{ viewer { user { username } } }';
const USERS = '{ users { id username displayName locale isAdmin groups { id name grants } } }';
const GROUPS = '{ groups { id name grants } }';
const CREATE_USER = `mutation ($input: CreateUserInput!) {
  createUser(input: $input) { id username displayName locale isAdmin groups { id name grants } }
}`;
const CREATE_TOKEN = `mutation ($userId: ID!, $label: String!, $expiresAt: DateTime) {
  createApiToken(userId: $userId, label: $label, expiresAt: $expiresAt) { tokenId token }
}`;
const REVOKE_TOKEN = 'mutation ($tokenId: ID!) { revokeApiToken(tokenId: $tokenId) }';

interface CreatedUser {
  createUser: Pick<User, 'id' | 'username' | 'displayName' | 'locale' | 'isAdmin'>;
}
interface CreatedToken {
  createApiToken: Pick<ApiTokenCreated, 'tokenId' | 'token'>;
}

type WsOutcome = { connected: true; username: string | null } | { connected: false; closeCode: number };

/**
 * Opens a graphql-ws connection with a token (or none) and reports whether the server
 * acknowledged it (then runs `viewer` over the socket) or closed it, and with which code.
 */
function wsOutcome(t: TestApp, token: string | null): Promise<WsOutcome> {
  return new Promise<WsOutcome>((resolve, reject) => {
    const client = createClient({
      url: t.wsUrl,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => undefined,
      connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    });
    const finish = (outcome: WsOutcome) => {
      resolve(outcome);
      void client.dispose();
    };
    client.on('closed', (event) => finish({ connected: false, closeCode: (event as { code: number }).code }));
    client.on('connected', () => {
      let username: string | null = null;
      client.subscribe<{ viewer: { user: { username: string } } }>(
        { query: VIEWER },
        {
          next: (r) => (username = r.data?.viewer.user.username ?? null),
          error: reject,
          complete: () => finish({ connected: true, username }),
        },
      );
    });
  });
}

describe('auth: users, groups and tokens through the API', () => {
  const { t } = useTestApp();

  const count = async (table: 'app_user' | 'api_token' | 'group_member'): Promise<number> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`);
    return rows[0]!.n;
  };
  const counts = async () => ({
    users: await count('app_user'),
    tokens: await count('api_token'),
    members: await count('group_member'),
  });
  const userId = async (username: string): Promise<string> => {
    const rows: Array<{ id: number }> = await t.dataSource.query(
      'SELECT id FROM app_user WHERE username = $1',
      [username],
    );
    return String(rows[0]!.id);
  };
  const tokenRow = async (tokenId: string) => {
    const rows: Array<{
      user_id: number;
      token_hash: string;
      label: string;
      last_used_at: Date | null;
      expires_at: Date | null;
      revoked_at: Date | null;
    }> = await t.dataSource.query('SELECT * FROM api_token WHERE id = $1', [tokenId]);
    return rows[0];
  };
  const demoTokenId = async (username: string): Promise<string> => {
    const rows: Array<{ id: string }> = await t.dataSource.query(
      `SELECT t.id FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE u.username = $1 AND t.label = 'demo'`,
      [username],
    );
    return rows[0]!.id;
  };
  const createToken = async (as: string, vars: { userId: string; label: string; expiresAt?: string }) => {
    const res = await t.gql<CreatedToken>(CREATE_TOKEN, vars, as);
    expect(res.errors).toBeUndefined();
    return res.data!.createApiToken;
  };
  const expectRefused = (res: GqlResponse, code: string) => {
    expect(errorCode(res)).toBe(code);
    expect(res.data?.[Object.keys(res.data ?? {})[0] ?? ''] ?? null).toBeNull();
  };

  describe('authentication on both transports', () => {
    let revoked: string;
    let expired: string;

    beforeAll(async () => {
      const alice = await userId('alice');
      const r = await createToken('alice', { userId: alice, label: 'to revoke' });
      expect((await t.gql(REVOKE_TOKEN, { tokenId: r.tokenId }, 'alice')).data).toEqual({
        revokeApiToken: true,
      });
      revoked = r.token;
      const e = await createToken('alice', {
        userId: alice,
        label: 'to expire',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect((await t.gql(VIEWER, {}, e.token)).status).toBe(200); // usable before it expires
      await t.dataSource.query(
        `UPDATE api_token SET expires_at = now() - interval '1 minute' WHERE id = $1`,
        [e.tokenId],
      );
      expired = e.token;
    });

    const badTokens: Array<[string, () => string | null]> = [
      ['no token', () => null],
      ['a malformed token', () => 'not-a-token'],
      ['a well-formed unknown token', () => 'cs_' + 'A'.repeat(43)],
      ['a revoked token', () => revoked],
      ['an expired token', () => expired],
    ];

    it.each(badTokens)('HTTP refuses %s with 401 UNAUTHENTICATED', async (_name, token) => {
      const res = await t.gql(VIEWER, {}, token());
      expect(res.status).toBe(401);
      expect(errorCode(res)).toBe('UNAUTHENTICATED');
      expect(res.data ?? null).toBeNull();
    });

    it.each(badTokens)('graphql-ws closes with 4401 for %s', async (_name, token) => {
      await expect(wsOutcome(t, token())).resolves.toEqual({ connected: false, closeCode: 4401 });
    });

    it('graphql-ws acknowledges a valid token and runs operations as its user', async () => {
      await expect(wsOutcome(t, t.tokens.bob!)).resolves.toEqual({ connected: true, username: 'bob' });
    });

    it('graphql-ws closes a connection with 4401 when its personal access token expires', async () => {
      const expiresAt = new Date(Date.now() + 2_000).toISOString();
      const created = await t.gql<CreatedToken>(
        CREATE_TOKEN,
        { userId: await userId('bob'), label: 'two seconds', expiresAt },
        'bob',
      );
      const stream = collect(t.ws(created.data!.createApiToken.token), INBOX_CHANGED, {});
      let timer: NodeJS.Timeout | undefined;
      const open = new Promise<'still open'>((r) => (timer = setTimeout(() => r('still open'), 6_000)));
      const ended = await Promise.race([stream.done.then(() => refusalsIn(stream.errors)), open]);
      clearTimeout(timer);
      // why: an idle stream has no event to be refused at; the connection itself ends at the expiry.
      expect(ended).toEqual(['close 4401']);
    });
  });

  describe('admin operations refused to non-admins, leaving nothing behind', () => {
    it('users and groups: FORBIDDEN', async () => {
      for (const query of [USERS, GROUPS]) {
        const res = await t.gql(query, {}, 'carol');
        expect(res.status).toBe(200);
        expectRefused(res, 'FORBIDDEN');
      }
    });

    it('createUser: FORBIDDEN, no user and no membership written', async () => {
      const before = await counts();
      const res = await t.gql(
        CREATE_USER,
        { input: { username: 'mallory', isAdmin: true, groupIds: ['1'] } },
        'alice',
      );
      expectRefused(res, 'FORBIDDEN');
      expect(await counts()).toEqual(before);
      expect(await t.dataSource.query(`SELECT 1 FROM app_user WHERE username = 'mallory'`)).toHaveLength(0);
    });

    it('createApiToken for another user: NOT_FOUND, the same as for a user id that does not exist', async () => {
      const before = await counts();
      const other = await t.gql(CREATE_TOKEN, { userId: await userId('bob'), label: 'steal' }, 'alice');
      const missing = await t.gql(CREATE_TOKEN, { userId: '999999', label: 'steal' }, 'alice');
      expectRefused(other, 'NOT_FOUND');
      expectRefused(missing, 'NOT_FOUND');
      expect(other.errors![0]!.message).toBe(missing.errors![0]!.message);
      expect(await counts()).toEqual(before);
    });

    it('revokeApiToken of another user’s token: NOT_FOUND, and the token keeps working', async () => {
      const bobToken = await demoTokenId('bob');
      const res = await t.gql(REVOKE_TOKEN, { tokenId: bobToken }, 'alice');
      const unknown = await t.gql(REVOKE_TOKEN, { tokenId: '00000000-0000-4000-8000-000000000000' }, 'alice');
      expectRefused(res, 'NOT_FOUND');
      expectRefused(unknown, 'NOT_FOUND');
      expect(res.errors![0]!.message).toBe(unknown.errors![0]!.message);
      expect((await tokenRow(bobToken))!.revoked_at).toBeNull();
      expect((await t.gql(VIEWER, {}, 'bob')).status).toBe(200);
    });
  });

  describe('admin queries', () => {
    it('users lists every demo user with groups', async () => {
      const res = await t.gql<{
        users: Array<{ username: string; locale: string; isAdmin: boolean; groups: Array<{ name: string }> }>;
      }>(USERS);
      const byName = new Map(res.data!.users.map((u) => [u.username, u]));
      expect([...byName.keys()]).toEqual(
        expect.arrayContaining(['admin', 'alice', 'bob', 'carol', 'dave', 'erin']),
      );
      expect(byName.get('admin')).toMatchObject({ isAdmin: true, groups: [] });
      expect(byName.get('bob')).toMatchObject({
        locale: 'de',
        isAdmin: false,
        groups: [{ name: 'approvers' }],
      });
      expect(
        byName
          .get('carol')!
          .groups.map((g) => g.name)
          .sort(),
      ).toEqual(['approvers', 'editors']);
      expect(res.data!.users).toHaveLength(await count('app_user'));
    });

    it('groups lists the demo groups with grants', async () => {
      const res = await t.gql<{ groups: Array<{ name: string; grants: string[] }> }>(GROUPS);
      const grants = Object.fromEntries(res.data!.groups.map((g) => [g.name, g.grants]));
      expect(grants).toEqual({
        editors: ['CHAT'],
        approvers: ['AGENT_APPROVE'],
        interns: ['CHAT'],
        restricted: ['CHAT'],
      });
    });
  });

  describe('createUser', () => {
    it('creates a user with defaults and groups', async () => {
      const groups = await t.gql<{ groups: Array<{ id: string; name: string }> }>(GROUPS);
      const editors = groups.data!.groups.find((g) => g.name === 'editors')!.id;
      const res = await t.gql<CreatedUser>(CREATE_USER, {
        input: { username: 'frank', groupIds: [editors, editors] },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.createUser).toMatchObject({
        username: 'frank',
        displayName: 'frank',
        locale: 'en',
        isAdmin: false,
        groups: [{ id: editors, name: 'editors', grants: ['CHAT'] }],
      });
      const members: unknown[] = await t.dataSource.query('SELECT 1 FROM group_member WHERE user_id = $1', [
        Number(res.data!.createUser.id),
      ]);
      expect(members).toHaveLength(1);
    });

    it('refuses a taken username with BAD_USER_INPUT and a clear message, writing nothing', async () => {
      const before = await counts();
      const res = await t.gql(CREATE_USER, { input: { username: 'alice', displayName: 'Another Alice' } });
      expectRefused(res, 'BAD_USER_INPUT');
      expect(res.errors![0]!.message).toBe('The username "alice" is already taken');
      expect(await counts()).toEqual(before);
    });

    it.each([
      ['a username with upper case', { username: 'Grace' }],
      ['a one-letter username', { username: 'g' }],
      ['a username over 64 characters', { username: 'g'.repeat(65) }],
      ['a username with a space', { username: 'gr ace' }],
      ['a display name over 200 characters', { username: 'grace', displayName: 'G'.repeat(201) }],
      ['a blank display name', { username: 'grace', displayName: '   ' }],
      ['a locale that is no language tag', { username: 'grace', locale: 'english' }],
      ['a malformed group id', { username: 'grace', groupIds: ['abc'] }],
    ])('refuses %s with BAD_USER_INPUT, writing nothing', async (_name, input) => {
      const before = await counts();
      const res = await t.gql(CREATE_USER, { input });
      expectRefused(res, 'BAD_USER_INPUT');
      expect(await counts()).toEqual(before);
    });

    it('refuses an unknown group id with NOT_FOUND, writing neither user nor membership', async () => {
      const before = await counts();
      const res = await t.gql(CREATE_USER, { input: { username: 'heidi', groupIds: ['1', '999999'] } });
      expectRefused(res, 'NOT_FOUND');
      expect(res.errors![0]!.extensions!.groupIds).toEqual(['999999']);
      expect(await counts()).toEqual(before);
    });
  });

  describe('createApiToken and revokeApiToken', () => {
    it('createUser, a token for that user from the command line, viewer with it; revoke refuses it', async () => {
      const created = await t.gql<CreatedUser>(CREATE_USER, {
        input: { username: 'ivan', displayName: 'Ivan', locale: 'de', isAdmin: false },
      });
      const ivanId = created.data!.createUser.id;
      // an admin may not mint a token that acts as someone else; the command line may
      const before = await counts();
      const minted = await t.gql(CREATE_TOKEN, { userId: ivanId, label: 'ivan laptop' }, 'admin');
      expectRefused(minted, 'FORBIDDEN');
      expect(await counts()).toEqual(before);
      const { tokenId, token } = await t.app
        .get(TokensService)
        .create(RequestContext.system(), { userId: Number(ivanId), label: 'ivan laptop' });
      expect(token).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);

      const stored = (await tokenRow(tokenId))!;
      expect(stored).toMatchObject({ user_id: Number(ivanId), label: 'ivan laptop', revoked_at: null });
      expect(stored.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
      expect(stored.last_used_at).toBeNull();
      const withSecret: unknown[] = await t.dataSource.query(
        'SELECT 1 FROM api_token WHERE token_hash = $1 OR label = $1',
        [token],
      );
      expect(withSecret).toHaveLength(0); // only the hash is stored

      const viewer = await t.gql<{ viewer: { user: { username: string } } }>(VIEWER, {}, token);
      expect(viewer.data!.viewer.user.username).toBe('ivan');
      const used = (await tokenRow(tokenId))!.last_used_at;
      expect(used).toBeInstanceOf(Date);
      expect(Math.abs(used!.getTime() - Date.now())).toBeLessThan(60_000);

      expect((await t.gql(REVOKE_TOKEN, { tokenId }, token)).data).toEqual({ revokeApiToken: true });
      const refused = await t.gql(VIEWER, {}, token);
      expect([refused.status, errorCode(refused)]).toEqual([401, 'UNAUTHENTICATED']);
      expect((await tokenRow(tokenId))!.revoked_at).toBeInstanceOf(Date);
    });

    it('lets a user create and revoke their own tokens; revoking is idempotent', async () => {
      const dave = await userId('dave');
      const { tokenId, token } = await createToken('dave', { userId: dave, label: '  ci  ' });
      expect((await tokenRow(tokenId))!).toMatchObject({ user_id: Number(dave), label: 'ci' });
      expect((await t.gql(VIEWER, {}, token)).status).toBe(200);

      expect((await t.gql(REVOKE_TOKEN, { tokenId }, 'dave')).data).toEqual({ revokeApiToken: true });
      const first = (await tokenRow(tokenId))!.revoked_at;
      expect((await t.gql(REVOKE_TOKEN, { tokenId }, 'dave')).data).toEqual({ revokeApiToken: true });
      expect((await tokenRow(tokenId))!.revoked_at).toEqual(first);
    });

    it('lets an admin revoke anyone’s token', async () => {
      const erin = await userId('erin');
      const { tokenId, token } = await createToken('erin', { userId: erin, label: 'erin spare' });
      expect((await t.gql(REVOKE_TOKEN, { tokenId }, 'admin')).data).toEqual({ revokeApiToken: true });
      expect((await t.gql(VIEWER, {}, token)).status).toBe(401);
    });

    it('refuses bad token input with BAD_USER_INPUT, writing nothing', async () => {
      const dave = await userId('dave');
      const before = await counts();
      const cases: Array<Record<string, unknown>> = [
        { userId: dave, label: '' },
        { userId: dave, label: '   ' },
        { userId: dave, label: 'x'.repeat(201) },
        { userId: dave, label: 'past', expiresAt: new Date(Date.now() - 60_000).toISOString() },
        { userId: dave, label: 'not a date', expiresAt: 'tomorrow' },
        { userId: dave, label: 'a number', expiresAt: 4102444800000 },
        { userId: dave, label: 'a boolean', expiresAt: true },
        { userId: 'abc', label: 'bad id' },
      ];
      for (const vars of cases) {
        const res = await t.gql(CREATE_TOKEN, vars, 'dave');
        expect([JSON.stringify(vars).slice(0, 80), errorCode(res)]).toEqual([
          JSON.stringify(vars).slice(0, 80),
          'BAD_USER_INPUT',
        ]);
      }
      // a literal that is not a date-time string is refused too, not read as "no expiry"
      for (const literal of ['1', '4102444800000', 'true', '{ a: 1 }', '[1]']) {
        const res = await t.gql(
          `mutation ($userId: ID!) { createApiToken(userId: $userId, label: "literal", expiresAt: ${literal}) { tokenId } }`,
          { userId: dave },
          'dave',
        );
        expect([literal, errorCode(res)]).toEqual([literal, 'GRAPHQL_VALIDATION_FAILED']);
      }
      const malformed = await t.gql(REVOKE_TOKEN, { tokenId: 'not-a-uuid' }, 'dave');
      expect(errorCode(malformed)).toBe('BAD_USER_INPUT');
      expect(await counts()).toEqual(before);
    });

    it('stores a future expiry', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000);
      const { tokenId } = await createToken('dave', {
        userId: await userId('dave'),
        label: 'tomorrow',
        expiresAt: expiresAt.toISOString(),
      });
      expect((await tokenRow(tokenId))!.expires_at!.getTime()).toBe(expiresAt.getTime());
    });
  });
});
