import { generateToken, hashToken } from '../core/token';
import type { AuthRepository } from '../persistence/auth.repository';
import type { EventBus } from '../../../platform/pubsub/event-bus';
import { TokenAuthenticator } from './token-authenticator';

describe('TokenAuthenticator.authenticate', () => {
  const token = generateToken();
  const user = { id: 1, username: 'alice', displayName: 'Alice', locale: 'en', isAdmin: false, groups: [] };

  function withToken(lastUsedAt: Date | null) {
    const touched: Date[] = [];
    const lookups: string[][] = [];
    const tokenHash = hashToken(token);
    const repository = {
      findTokensByHashes: (hashes: string[]) => {
        lookups.push(hashes);
        return Promise.resolve(
          hashes.includes(tokenHash)
            ? [{ id: 't1', tokenHash, revokedAt: null, expiresAt: null, lastUsedAt, user }]
            : [],
        );
      },
      touchToken: (_id: string, now: Date) => Promise.resolve(void touched.push(now)),
    } as unknown as AuthRepository;
    return {
      auth: new TokenAuthenticator(repository, {} as EventBus, { databaseUrl: null }),
      touched,
      lookups,
    };
  }

  it('records use when the token was not used in the last minute', async () => {
    const { auth, touched } = withToken(new Date(Date.now() - 61_000));
    expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({ id: 1, tokenId: 't1' });
    expect(touched).toHaveLength(1);
  });

  it('writes nothing for a token used within the minute', async () => {
    const { auth, touched } = withToken(new Date(Date.now() - 5_000));
    expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({ id: 1 });
    expect(touched).toHaveLength(0);
  });

  it('looks a lone request up at once, and the requests arriving with it together after it', async () => {
    const { auth, lookups } = withToken(new Date());
    const other = generateToken();
    const first = auth.authenticate(`Bearer ${token}`);
    expect(lookups).toEqual([[hashToken(token)]]);
    const rest = [token, other, token].map((t) => auth.authenticate(`Bearer ${t}`));
    const users = await Promise.all([first, ...rest]);
    expect(users.map((u) => u?.id ?? null)).toEqual([1, 1, null, 1]);
    expect(lookups).toEqual([[hashToken(token)], [hashToken(token), hashToken(other)]]);
  });

  it('refuses an unknown token without writing', async () => {
    const { auth, touched } = withToken(null);
    expect(await auth.authenticate(`Bearer ${generateToken()}`)).toBeNull();
    expect(touched).toHaveLength(0);
  });
});

describe('TokenAuthenticator.refresh', () => {
  it('re-checks many tokens at once with one lookup, and drops revoked ones', async () => {
    const user = { id: 1, username: 'alice', displayName: 'Alice', locale: 'en', isAdmin: false, groups: [] };
    const lookups: string[][] = [];
    const repository = {
      findTokensWithUsers: (ids: string[]) => {
        lookups.push(ids);
        return Promise.resolve(
          ids.map((id) => ({ id, revokedAt: id === 't3' ? new Date() : null, expiresAt: null, user })),
        );
      },
    } as unknown as AuthRepository;
    const auth = new TokenAuthenticator(repository, {} as EventBus, { databaseUrl: null });
    const viewers = ['t1', 't2', 't3', 't1'].map((tokenId) => ({ tokenId }) as never);
    const fresh = await Promise.all(viewers.map((v) => auth.refresh(v)));
    expect(lookups).toEqual([['t1', 't2', 't3']]);
    expect(fresh.map((f) => (f as { tokenId: string } | null)?.tokenId ?? null)).toEqual([
      't1',
      't2',
      null,
      't1',
    ]);
  });
});
