import { hashToken } from '../../../src/modules/auth/core/token';
import { AuthRepository, toAuthUser } from '../../../src/modules/auth/persistence/auth.repository';
import { demoTokens, useTestDatabase } from '../../support/test-database';

describe('AuthRepository', () => {
  const suite = useTestDatabase();
  let repository: AuthRepository;

  beforeAll(() => {
    repository = new AuthRepository(suite.ds);
  });
  const findTokenByHash = async (hash: string) => (await repository.findTokensByHashes([hash]))[0] ?? null;

  it("finds a token by its hash with its user and the user's groups, in one call", async () => {
    const token = await findTokenByHash(hashToken(demoTokens().carol!));
    expect(token).not.toBeNull();
    expect(token!.label).toBe('demo');
    expect(token!.revokedAt).toBeNull();
    expect(token!.user?.username).toBe('carol');
    const groups = (token!.user?.groups ?? []).map((g) => [g.name, g.grants]).sort();
    expect(groups).toEqual([
      ['approvers', ['AGENT_APPROVE']],
      ['editors', ['CHAT']],
    ]);
    const user = toAuthUser(token!.user!, token!.id);
    expect([...user.grants].sort()).toEqual(['AGENT_APPROVE', 'CHAT']);
    expect(user.tokenId).toBe(token!.id);
  });

  it('finds an admin without groups, and nothing for an unknown hash', async () => {
    const admin = await findTokenByHash(hashToken(demoTokens().admin!));
    expect(admin!.user).toMatchObject({ username: 'admin', isAdmin: true, groups: [] });
    expect(await findTokenByHash(hashToken('cs_not-a-token'))).toBeNull();
    expect(await findTokenByHash(demoTokens().admin!)).toBeNull(); // the raw token is never stored
  });

  it('finds the tokens of several hashes in one call, unknown hashes absent', async () => {
    const tokens = demoTokens();
    const found = await repository.findTokensByHashes([
      hashToken(tokens.alice!),
      hashToken('cs_not-a-token'),
      hashToken(tokens.bob!),
    ]);
    expect(found.map((t) => [t.user!.username, t.tokenHash]).sort()).toEqual([
      ['alice', hashToken(tokens.alice!)],
      ['bob', hashToken(tokens.bob!)],
    ]);
    expect(await repository.findTokensByHashes([])).toEqual([]);
  });

  it('finds a token by id with its user, and nothing for an unknown id', async () => {
    const byHash = await findTokenByHash(hashToken(demoTokens().bob!));
    const byId = await repository.findTokenWithUser(byHash!.id);
    expect(byId!.user?.username).toBe('bob');
    expect(byId!.user?.groups?.map((g) => g.name)).toEqual(['approvers']);
    expect(await repository.findTokenWithUser('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('reads dates as dates (a revocation is a Date, not a string) and many tokens at once', async () => {
    const erin = (await findTokenByHash(hashToken(demoTokens().erin!)))!;
    const alice = (await findTokenByHash(hashToken(demoTokens().alice!)))!;
    const at = new Date('2030-02-01T00:00:00Z');
    await suite.ds.query('UPDATE api_token SET revoked_at = $2, expires_at = $2 WHERE id = $1', [
      erin.id,
      at,
    ]);
    const [both, none] = [
      await repository.findTokensWithUsers([erin.id, alice.id]),
      await repository.findTokensWithUsers([]),
    ];
    expect(none).toEqual([]);
    const byName = Object.fromEntries(both.map((t) => [t.user!.username, t]));
    expect(byName.erin!.revokedAt).toEqual(at);
    expect(byName.erin!.expiresAt).toEqual(at);
    expect(byName.alice!.revokedAt).toBeNull();
    expect(byName.alice!.createdAt).toBeInstanceOf(Date);
    expect(byName.alice!.user!.groups!.map((g) => g.name)).toEqual(['editors']);
  });

  it('finds a user with their groups by id, and nothing for an unknown id', async () => {
    const carol = (await findTokenByHash(hashToken(demoTokens().carol!)))!.user!;
    const user = await repository.findUserWithGroups(carol.id);
    expect(user).toMatchObject({ id: carol.id, username: 'carol', isAdmin: false });
    expect(user!.createdAt).toBeInstanceOf(Date);
    expect(user!.groups!.map((g) => [g.name, g.grants])).toEqual(
      carol.groups!.map((g) => [g.name, g.grants]),
    );
    expect(await repository.findUserWithGroups(987654)).toBeNull();
  });

  it("records a token's use at most once a minute", async () => {
    const { id } = (await findTokenByHash(hashToken(demoTokens().dave!)))!;
    const lastUsed = async (): Promise<Date | null> => (await repository.findTokenWithUser(id))!.lastUsedAt;
    const t0 = new Date('2030-01-01T10:00:00Z');
    await repository.touchToken(id, t0);
    expect(await lastUsed()).toEqual(t0);
    await repository.touchToken(id, new Date(t0.getTime() + 30_000));
    expect(await lastUsed()).toEqual(t0);
    const t2 = new Date(t0.getTime() + 61_000);
    await repository.touchToken(id, t2);
    expect(await lastUsed()).toEqual(t2);
  });
});
