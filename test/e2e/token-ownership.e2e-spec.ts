import { Logger } from '@nestjs/common';
import { listTokens, revokeTokens } from '../../src/cli/commands/token-manage';
import { createToken as cliCreateToken } from '../../src/cli/commands/token-create';
import { OperatorAccounts, TokensService } from '../../src/modules/auth';
import { Refusal } from '../../src/common/refusal';
import { Authenticator } from '../../src/platform/auth/authenticator';
import { RequestContext } from '../../src/platform/auth/request-context';
import { createToken, createUserWithToken } from '../support/decisions';
import { errorCode, GqlResponse } from '../support/test-app';
import { useTestApp } from '../support/suite';
import type { ApiToken, User } from '../support/generated/schema';

const CREATE = `mutation($userId: ID!, $label: String!, $expiresAt: DateTime) {
  createApiToken(userId: $userId, label: $label, expiresAt: $expiresAt) { tokenId token } }`;
const LIST = `query($userId: ID) { apiTokens(userId: $userId) {
  id label owner { username } createdBy { username } createdAt lastUsedAt expiresAt revokedAt } }`;
const REVOKE_ALL = `mutation($userId: ID!) { revokeApiTokens(userId: $userId) }`;
const AUDIT = `query($userId: ID) { auditEvents(userId: $userId) {
  action via actorUserId actorUsername actorTokenId subjectUserId details } }`;
const VIEWER = '{ viewer { user { username } } }';

type Listed = Pick<ApiToken, 'id' | 'label' | 'expiresAt' | 'revokedAt'> & {
  owner: Pick<User, 'username'>;
  createdBy: Pick<User, 'username'> | null;
};

/**
 * Tokens cannot outlive or hide from their owner, and admins cannot act as someone else: a
 * token creates no token that outlives it, tokens are listed and revoked one or all (API and
 * command line), tokens for another user come only from the command line, and every change to
 * users and tokens is audited (table and log line).
 */
describe('token ownership and the audit trail', () => {
  let logged: jest.SpyInstance;
  const { t, ids } = useTestApp({}, { beforeClose: () => logged.mockRestore() });

  /** The command line's accounts over the app's database (in-memory bus: nothing to close). */
  const operator = (): OperatorAccounts => OperatorAccounts.over(t.dataSource);
  const tokenCount = async (): Promise<number> =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM api_token'))[0].n as number;
  const auditCount = async (): Promise<number> =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM audit_event'))[0].n as number;
  const created = (res: GqlResponse<{ createApiToken: { tokenId: string; token: string } }>) => {
    if (!res.data?.createApiToken) throw new Error(`createApiToken: ${JSON.stringify(res.errors)}`);
    return res.data.createApiToken;
  };

  beforeAll(() => {
    logged = jest.spyOn(Logger.prototype, 'log');
  });

  describe('a token may not outlive the token that creates it', () => {
    it('refuses a longer or missing expiry with BAD_USER_INPUT (expiresAt), writing nothing; a shorter one works', async () => {
      const soon = new Date(Date.now() + 60_000);
      const short = created(
        await t.gql(CREATE, { userId: ids.users.dave, label: 'short', expiresAt: soon }, 'dave'),
      );
      const before = [await tokenCount(), await auditCount()];
      for (const expiresAt of [null, new Date(soon.getTime() + 60_000).toISOString()]) {
        const res = await t.gql(CREATE, { userId: ids.users.dave, label: 'longer', expiresAt }, short.token);
        expect(errorCode(res)).toBe('BAD_USER_INPUT');
        expect(res.errors![0]!.extensions!.field).toBe('expiresAt');
        expect(res.errors![0]!.message).toContain(soon.toISOString());
      }
      expect([await tokenCount(), await auditCount()]).toEqual(before);
      const within = new Date(soon.getTime() - 1_000).toISOString();
      const child = created(
        await t.gql(CREATE, { userId: ids.users.dave, label: 'within', expiresAt: within }, short.token),
      );
      const [row] = await t.dataSource.query('SELECT expires_at, created_by FROM api_token WHERE id = $1', [
        child.tokenId,
      ]);
      expect(row.expires_at.toISOString()).toBe(within);
      expect(row.created_by).toBe(Number(ids.users.dave));
    });
  });

  describe('tokens for another user come only from the command line', () => {
    it('refuses an admin minting a token for another user, an admin one included: FORBIDDEN, nothing written', async () => {
      const second = await t.gql<{ createUser: { id: string } }>(
        `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`,
        { input: { username: 'second-admin', isAdmin: true } },
      );
      const secondId = second.data!.createUser.id;
      const before = [await tokenCount(), await auditCount()];
      for (const userId of [ids.users.alice, secondId]) {
        const res = await t.gql(CREATE, { userId, label: 'as someone else' }, 'admin');
        expect(errorCode(res)).toBe('FORBIDDEN');
        expect(res.errors![0]!.message).toMatch(/command line/);
      }
      expect([await tokenCount(), await auditCount()]).toEqual(before);
      // what the admin did instead is on record: a second admin, created by them
      const audit = await t.gql<{ auditEvents: Array<Record<string, unknown>> }>(AUDIT, { userId: secondId });
      expect(audit.data!.auditEvents).toEqual([
        {
          action: 'USER_CREATED',
          via: 'api',
          actorUserId: ids.users.admin,
          actorUsername: 'admin',
          actorTokenId: expect.any(String),
          subjectUserId: secondId,
          details: { username: 'second-admin', isAdmin: true, groupIds: [] },
        },
      ]);
    });

    it('the command line creates one with no creator, and it is audited as the command line', async () => {
      const lines = await cliCreateToken(operator(), {
        kind: 'token-create',
        username: 'erin',
        label: 'ops',
      });
      const token = lines.at(-1)!;
      expect(
        (await t.gql<{ viewer: { user: { username: string } } }>(VIEWER, {}, token)).data!.viewer.user
          .username,
      ).toBe('erin');
      const listed = (await t.gql<{ apiTokens: Listed[] }>(LIST, { userId: ids.users.erin })).data!.apiTokens;
      expect(listed.find((l) => l.label === 'ops')).toMatchObject({
        owner: { username: 'erin' },
        createdBy: null,
      });
      const [row] = await t.dataSource.query(
        `SELECT via, actor_user_id FROM audit_event WHERE action = 'TOKEN_CREATED' AND subject_user_id = $1 ORDER BY at DESC LIMIT 1`,
        [ids.users.erin],
      );
      expect(row).toEqual({ via: 'cli', actor_user_id: null });
    });
  });

  describe('listing and revoking', () => {
    it('lists one’s own tokens with their creator, never the secret; admins list anyone’s', async () => {
      const own = created(await t.gql(CREATE, { userId: ids.users.bob, label: 'bob laptop' }, 'bob'));
      const mine = await t.gql<{ apiTokens: Listed[] }>(LIST, {}, 'bob');
      const row = mine.data!.apiTokens.find((l) => l.id === own.tokenId)!;
      expect(row).toMatchObject({
        label: 'bob laptop',
        owner: { username: 'bob' },
        createdBy: { username: 'bob' },
        expiresAt: null,
        revokedAt: null,
      });
      expect(mine.data!.apiTokens.map((l) => l.label)).toContain('demo');
      expect(JSON.stringify(mine)).not.toContain(own.token);
      const byAdmin = await t.gql<{ apiTokens: Listed[] }>(LIST, { userId: ids.users.bob });
      expect(byAdmin.data!.apiTokens.map((l) => l.id)).toEqual(mine.data!.apiTokens.map((l) => l.id));
    });

    it('revokes all of a user’s tokens (API): every one stops working, the count is returned and audited', async () => {
      const user = await createUserWithToken(t, 'many-tokens', []);
      const second = await createToken(t, user.userId, user.token);
      const res = await t.gql<{ revokeApiTokens: number }>(REVOKE_ALL, { userId: user.userId });
      expect(res.data).toEqual({ revokeApiTokens: 2 });
      for (const token of [user.token, second.token])
        expect((await t.gql(VIEWER, {}, token)).status).toBe(401);
      const [left] = await t.dataSource.query(
        'SELECT count(*)::int AS n FROM api_token WHERE user_id = $1 AND revoked_at IS NULL',
        [user.userId],
      );
      expect(left.n).toBe(0);
      const audit = await t.gql<{ auditEvents: Array<{ action: string; details: { count?: number } }> }>(
        AUDIT,
        {
          userId: user.userId,
        },
      );
      expect(audit.data!.auditEvents[0]).toMatchObject({ action: 'TOKENS_REVOKED', details: { count: 2 } });
      expect((await t.gql(REVOKE_ALL, { userId: user.userId })).data).toEqual({ revokeApiTokens: 0 });
    });

    it('the command line refuses a token id that is not the named user’s: nothing revoked, nothing audited', async () => {
      const owner = await createUserWithToken(t, 'cli-owner', []);
      await createUserWithToken(t, 'cli-other', []);
      const spare = await createToken(t, owner.userId, owner.token);
      const before = [await tokenCount(), await auditCount()];
      const wrongUser = { kind: 'token-revoke' as const, username: 'cli-other', tokenId: spare.tokenId };
      await expect(revokeTokens(operator(), wrongUser)).rejects.toThrow(
        `"cli-other" has no token ${spare.tokenId}; nothing revoked.`,
      );
      expect([await tokenCount(), await auditCount()]).toEqual(before);
      const [row] = await t.dataSource.query('SELECT revoked_at FROM api_token WHERE id = $1', [
        spare.tokenId,
      ]);
      expect(row.revoked_at).toBeNull();
      expect((await t.gql(VIEWER, {}, spare.token)).status).toBe(200);
    });

    it('counts every user’s active tokens for admins and the command line; FORBIDDEN for anyone else', async () => {
      const tokens = t.app.get(TokensService);
      const asUser = async (token: string) =>
        new RequestContext(await t.app.get(Authenticator).authenticate(`Bearer ${token}`));
      const refusal = await tokens.activeCounts(await asUser(t.tokens.bob!)).catch((e: Refusal) => e.code);
      expect(refusal).toBe('FORBIDDEN');
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM api_token WHERE user_id = $1 AND revoked_at IS NULL
           AND (expires_at IS NULL OR expires_at > now())`,
        [Number(ids.users.bob)],
      );
      expect((await tokens.activeCounts(RequestContext.system())).get(Number(ids.users.bob))).toBe(n);
      expect((await tokens.activeCounts(await asUser(t.tokens.admin!))).get(Number(ids.users.bob))).toBe(n);
    });

    it('lists and revokes on the command line, one by id or all', async () => {
      const user = await createUserWithToken(t, 'cli-tokens', []);
      const second = await createToken(t, user.userId, user.token);
      const listing = await listTokens(operator(), { kind: 'token-list', username: 'cli-tokens' });
      expect(listing[0]).toBe('Tokens of "cli-tokens" (2):');
      expect(listing.join('\n')).toContain(second.tokenId);
      expect(listing.join('\n')).not.toContain(second.token);

      const one = { kind: 'token-revoke' as const, username: 'cli-tokens', tokenId: second.tokenId };
      expect(await revokeTokens(operator(), one)).toEqual([
        `Revoked token ${second.tokenId} of "cli-tokens".`,
      ]);
      expect((await t.gql(VIEWER, {}, second.token)).status).toBe(401);
      expect((await t.gql(VIEWER, {}, user.token)).status).toBe(200);
      await expect(revokeTokens(operator(), { ...one, username: 'alice' })).rejects.toThrow(/has no token/);

      expect(await revokeTokens(operator(), { ...one, tokenId: null })).toEqual([
        'Revoked 1 token(s) of "cli-tokens".',
      ]);
      expect((await t.gql(VIEWER, {}, user.token)).status).toBe(401);
      const rows: Array<{ via: string; action: string }> = await t.dataSource.query(
        `SELECT via, action FROM audit_event WHERE subject_user_id = $1 ORDER BY at`,
        [user.userId],
      );
      expect(rows.map((r) => `${r.via} ${r.action}`)).toEqual([
        'api USER_CREATED',
        'cli TOKEN_CREATED',
        'api TOKEN_CREATED',
        'cli TOKEN_REVOKED',
        'cli TOKENS_REVOKED',
      ]);
    });
  });

  it('logs every change to users and tokens with who made it', () => {
    const audits = logged.mock.calls
      .map((c) => c[0] as { audit?: { action: string; via: string; actorUserId: number | null } })
      .flatMap((m) => (m?.audit ? [m.audit] : []));
    expect(audits.map((a) => a.action)).toEqual(
      expect.arrayContaining(['USER_CREATED', 'TOKEN_CREATED', 'TOKENS_REVOKED']),
    );
    expect(audits.find((a) => a.action === 'USER_CREATED')).toMatchObject({
      via: 'api',
      actorUserId: Number(ids.users.admin),
    });
  });
});
