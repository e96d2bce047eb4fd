import { createHash } from 'node:crypto';
import { generateToken, hashToken, parseBearer, TOKEN_PREFIX, tokenUsable } from './token';

const TOKEN_SHAPE = /^cs_[A-Za-z0-9_-]{43}$/;

describe('generateToken', () => {
  it('is cs_ followed by 43 base64url characters (32 random bytes)', () => {
    const token = generateToken();
    expect(token).toMatch(TOKEN_SHAPE);
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(Buffer.from(token.slice(3), 'base64url')).toHaveLength(32);
  });

  it('never repeats itself', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => generateToken()));
    expect(tokens.size).toBe(200);
  });
});

describe('hashToken', () => {
  it('is the hex SHA-256 of the token, stable across calls', () => {
    const token = generateToken();
    const expected = createHash('sha256').update(token, 'utf8').digest('hex');
    expect(hashToken(token)).toBe(expected);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches the SHA-256 test vector', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('differs for different tokens', () => {
    expect(hashToken(generateToken())).not.toBe(hashToken(generateToken()));
  });
});

describe('parseBearer', () => {
  const token = generateToken();

  it.each([
    ['the usual form', `Bearer ${token}`],
    ['a lower-case scheme', `bearer ${token}`],
    ['an upper-case scheme', `BEARER ${token}`],
    ['several spaces after the scheme', `Bearer    ${token}`],
    ['a tab after the scheme', `Bearer\t${token}`],
    ['leading and trailing whitespace', `  Bearer ${token}  `],
  ])('accepts %s', (_name, header) => {
    expect(parseBearer(header)).toBe(token);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['an empty string', ''],
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['the token without a scheme', token],
    ['another scheme', `Basic ${token}`],
    ['no space after the scheme', `Bearer${token}`],
    ['a wrong prefix', `Bearer xx_${token.slice(3)}`],
    ['an upper-case prefix', `Bearer CS_${token.slice(3)}`],
    ['one character too short', `Bearer ${token.slice(0, -1)}`],
    ['one character too long', `Bearer ${token}A`],
    ['characters outside base64url', `Bearer cs_${'+'.repeat(43)}`],
    ['padding', `Bearer cs_${'A'.repeat(42)}=`],
    ['two tokens', `Bearer ${token} ${token}`],
  ])('refuses %s', (_name, header) => {
    expect(parseBearer(header)).toBeNull();
  });

  it('refuses a non-string value', () => {
    expect(parseBearer(42 as unknown as string)).toBeNull();
    expect(parseBearer(['Bearer', token] as unknown as string)).toBeNull();
  });
});

describe('tokenUsable', () => {
  const now = new Date('2030-01-01T12:00:00Z');
  const later = new Date(now.getTime() + 1000);
  const earlier = new Date(now.getTime() - 1000);

  it('accepts a token neither revoked nor expiring', () => {
    expect(tokenUsable({ revokedAt: null, expiresAt: null }, now)).toBe(true);
  });

  it('accepts a token expiring later', () => {
    expect(tokenUsable({ revokedAt: null, expiresAt: later }, now)).toBe(true);
  });

  it('refuses a token that expired', () => {
    expect(tokenUsable({ revokedAt: null, expiresAt: earlier }, now)).toBe(false);
  });

  it('refuses a token at the very moment it expires', () => {
    expect(tokenUsable({ revokedAt: null, expiresAt: new Date(now) }, now)).toBe(false);
  });

  it('refuses a revoked token, even one revoked in the future or not yet expired', () => {
    expect(tokenUsable({ revokedAt: earlier, expiresAt: null }, now)).toBe(false);
    expect(tokenUsable({ revokedAt: later, expiresAt: later }, now)).toBe(false);
  });
});
