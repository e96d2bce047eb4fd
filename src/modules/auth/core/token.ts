import { createHash, randomBytes } from 'node:crypto';

/** Personal access tokens: `cs_` followed by 32 random bytes in base64url (43 characters). */
export const TOKEN_PREFIX = 'cs_';
const TOKEN_PATTERN = /^cs_[A-Za-z0-9_-]{43}$/;

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The SHA-256 (hex) under which a token is stored; the token itself is never stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The credential of an `Authorization` value (`Bearer <credential>`, case-insensitive scheme). */
export function bearerCredential(authorization: string | null | undefined): string | null {
  if (typeof authorization !== 'string') return null;
  return /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? null;
}

/**
 * Extracts the token from an `Authorization` value (`Bearer cs_...`). Null when absent or not of
 * the token's shape.
 */
export function parseBearer(authorization: string | null | undefined): string | null {
  const token = bearerCredential(authorization);
  return token && TOKEN_PATTERN.test(token) ? token : null;
}

/** Whether a stored token may authenticate at `now`. */
export function tokenUsable(token: { revokedAt: Date | null; expiresAt: Date | null }, now: Date): boolean {
  if (token.revokedAt) return false;
  return !token.expiresAt || token.expiresAt.getTime() > now.getTime();
}
