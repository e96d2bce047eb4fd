import { isRefusal, Refusal } from '../../../common/refusal';
import { normalizeNewToken, normalizeNewUser } from './identity';
import { mayAdministerUsers, mayManageTokensOf, tokenOwnerScope } from './token-access.policy';

function refusalOf(fn: () => unknown): Refusal {
  try {
    fn();
  } catch (e) {
    if (isRefusal(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('normalizeNewUser', () => {
  it('applies the defaults', () => {
    expect(normalizeNewUser({ username: 'frank' })).toEqual({
      username: 'frank',
      displayName: 'frank',
      locale: 'en',
      isAdmin: false,
      groupIds: [],
    });
  });

  it('treats nulls as the defaults and removes duplicate group ids', () => {
    const user = normalizeNewUser({
      username: 'f.r_a-nk2',
      displayName: '  Frank  ',
      locale: null,
      isAdmin: null,
      groupIds: [3, 1, 3],
    });
    expect(user).toEqual({
      username: 'f.r_a-nk2',
      displayName: 'Frank',
      locale: 'en',
      isAdmin: false,
      groupIds: [3, 1],
    });
  });

  it('accepts region locales', () => {
    expect(normalizeNewUser({ username: 'ana', locale: 'pt-BR' }).locale).toBe('pt-BR');
  });

  it.each(['a', 'Frank', '1frank', '_frank', 'fr ank', 'frank!', 'ünal', 'x'.repeat(65), ''])(
    'refuses the username %p',
    (username) => {
      const r = refusalOf(() => normalizeNewUser({ username }));
      expect(r.code).toBe('BAD_USER_INPUT');
      expect(r.details).toEqual({ field: 'username' });
    },
  );

  it('accepts a username of 64 characters', () => {
    expect(normalizeNewUser({ username: 'x'.repeat(64) }).username).toHaveLength(64);
  });

  it.each(['', '   ', 'x'.repeat(201)])('refuses the display name %p', (displayName) => {
    expect(refusalOf(() => normalizeNewUser({ username: 'frank', displayName })).details).toEqual({
      field: 'displayName',
    });
  });

  it.each(['', 'EN', 'english', 'e', 'en_US', 'en-', 'en-US-x'])('refuses the locale %p', (locale) => {
    expect(refusalOf(() => normalizeNewUser({ username: 'frank', locale })).details).toEqual({
      field: 'locale',
    });
  });

  it('refuses more than 100 groups', () => {
    const groupIds = Array.from({ length: 101 }, (_, i) => i + 1);
    expect(refusalOf(() => normalizeNewUser({ username: 'frank', groupIds })).details).toEqual({
      field: 'groupIds',
    });
  });
});

describe('normalizeNewToken', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('trims the label and keeps a future expiry', () => {
    const expiresAt = new Date('2030-02-01T00:00:00Z');
    expect(normalizeNewToken({ userId: 2, label: ' ci ', expiresAt }, now)).toEqual({
      userId: 2,
      label: 'ci',
      expiresAt,
    });
  });

  it('treats a missing expiry as never', () => {
    expect(normalizeNewToken({ userId: 2, label: 'ci' }, now).expiresAt).toBeNull();
  });

  it.each(['', '  ', 'x'.repeat(201)])('refuses the label %p', (label) => {
    const r = refusalOf(() => normalizeNewToken({ userId: 2, label }, now));
    expect([r.code, r.details]).toEqual(['BAD_USER_INPUT', { field: 'label' }]);
  });

  it('refuses an expiry now or in the past', () => {
    for (const expiresAt of [now, new Date(now.getTime() - 1)]) {
      const r = refusalOf(() => normalizeNewToken({ userId: 2, label: 'ci', expiresAt }, now));
      expect([r.code, r.details]).toEqual(['BAD_USER_INPUT', { field: 'expiresAt' }]);
    }
  });
});

describe('token access policy', () => {
  const admin = { id: 1, isAdmin: true };
  const alice = { id: 2, isAdmin: false };

  it('lets admins and the system manage anyone’s tokens, a user only their own', () => {
    expect(mayManageTokensOf(admin, 2)).toBe(true);
    expect(mayManageTokensOf(null, 2)).toBe(true);
    expect(mayManageTokensOf(alice, 2)).toBe(true);
    expect(mayManageTokensOf(alice, 3)).toBe(false);
  });

  it('scopes revocation to the user’s own tokens unless admin or system', () => {
    expect(tokenOwnerScope(admin)).toBeNull();
    expect(tokenOwnerScope(null)).toBeNull();
    expect(tokenOwnerScope(alice)).toBe(2);
  });

  it('lets only admins and the system administer users', () => {
    expect(mayAdministerUsers(admin)).toBe(true);
    expect(mayAdministerUsers(null)).toBe(true);
    expect(mayAdministerUsers(alice)).toBe(false);
  });
});
