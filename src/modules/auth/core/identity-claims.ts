import { DEFAULT_LOCALE, LOCALE_MAX, LOCALE_PATTERN, USERNAME_PATTERN } from './identity';
import { bearerCredential } from './token';

/** The claims of a verified ID or access token this server reads. */
export type Claims = Readonly<Record<string, unknown>>;

/** A JSON Web Token's shape: three base64url parts (a personal access token starts with `cs_`). */
const JWT_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The JWT in an `Authorization` value (`Bearer eyJ...`), or null when it is not one. */
export function parseBearerJwt(authorization: string | null | undefined): string | null {
  const token = bearerCredential(authorization);
  // why: 16 KiB is far above any real token and keeps a huge header from reaching the parser.
  return token && token.length <= 16_384 && JWT_PATTERN.test(token) ? token : null;
}

/**
 * The values of the groups claim: a string or an array of strings; a dotted name reaches into
 * an object (Keycloak's `realm_access.roles`). Anything else counts as no groups.
 */
export function groupValuesOf(claims: Claims, claimName: string): string[] {
  let value: unknown = claims[claimName];
  if (value === undefined && claimName.includes('.')) {
    value = claimName
      .split('.')
      .reduce<unknown>(
        (at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
        claims,
      );
  }
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return [
    ...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200)),
  ];
}

const stringClaim = (claims: Claims, name: string): string | null => {
  const v = claims[name];
  return typeof v === 'string' && v.trim().length > 0 ? v.trim() : null;
};

/** What a first sign-in creates the user with, from the standard claims. */
export interface IdentityProfile {
  /** The username wished for; `usernameCandidates` makes it unique. */
  readonly username: string;
  readonly displayName: string;
  readonly email: string | null;
  readonly locale: string;
}

export function profileOf(claims: Claims): IdentityProfile {
  const email = stringClaim(claims, 'email');
  const wished =
    stringClaim(claims, 'preferred_username') ?? email?.split('@')[0] ?? stringClaim(claims, 'sub') ?? '';
  const username = safeUsername(wished);
  const displayName = (
    stringClaim(claims, 'name') ??
    stringClaim(claims, 'preferred_username') ??
    username
  ).slice(0, 200);
  const locale = stringClaim(claims, 'locale')?.replace('_', '-') ?? DEFAULT_LOCALE;
  return {
    username,
    displayName,
    email: email && email.length <= 320 ? email : null,
    locale: locale.length <= LOCALE_MAX && LOCALE_PATTERN.test(locale) ? locale : DEFAULT_LOCALE,
  };
}

/**
 * A username in this server's alphabet from whatever the provider calls the user: lower case,
 * anything else replaced, starting with a letter, at most 56 characters (room for a suffix).
 */
export function safeUsername(wished: string): string {
  const cleaned = wished
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 56);
  return USERNAME_PATTERN.test(cleaned) ? cleaned : 'user';
}

/** The names tried in turn for a new user: the wished one, then with -2, -3, … */
export function usernameCandidates(base: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`));
}
