import {
  groupValuesOf,
  parseBearerJwt,
  profileOf,
  safeUsername,
  usernameCandidates,
} from './identity-claims';

describe('identity claims', () => {
  it('tells a JWT from a personal access token by shape', () => {
    expect(parseBearerJwt('Bearer aaa.bbb.ccc')).toBe('aaa.bbb.ccc');
    expect(parseBearerJwt('Bearer cs_' + 'a'.repeat(43))).toBeNull();
    expect(parseBearerJwt('Basic aaa.bbb.ccc')).toBeNull();
    expect(parseBearerJwt(undefined)).toBeNull();
  });

  it('reads groups from a string, an array or a dotted path, nothing else', () => {
    expect(groupValuesOf({ groups: ['a', 'b', 'a', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupValuesOf({ roles: 'admin' }, 'roles')).toEqual(['admin']);
    expect(groupValuesOf({ realm_access: { roles: ['x'] } }, 'realm_access.roles')).toEqual(['x']);
    expect(groupValuesOf({ groups: { admin: true } }, 'groups')).toEqual([]);
  });

  it('derives a safe username, display name and locale from standard claims', () => {
    expect(
      profileOf({ sub: '1', preferred_username: 'Ada.Lovelace', email: 'ada@example.org', locale: 'de' }),
    ).toEqual({
      username: 'ada.lovelace',
      displayName: 'Ada.Lovelace',
      email: 'ada@example.org',
      locale: 'de',
    });
    expect(profileOf({ sub: '12', email: 'Zoë@example.org', locale: 'not a tag' }).username).toBe('zoe');
    expect(profileOf({ sub: '12', locale: 'pt_BR' }).locale).toBe('pt-BR');
    expect(safeUsername('42 <script>')).toBe('script');
    expect(safeUsername('___')).toBe('user');
    expect(usernameCandidates('ada', 3)).toEqual(['ada', 'ada-2', 'ada-3']);
  });
});
