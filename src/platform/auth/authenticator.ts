import { AuthUser } from './auth-user';

/** Resolves a bearer token to a user; implemented by the auth module. */
export abstract class Authenticator {
  /** The user for an `Authorization` value (`Bearer cs_...`), or null when not valid now. */
  abstract authenticate(authorization: string | undefined | null): Promise<AuthUser | null>;
  /**
   * Re-reads the user behind a token for per-event checks of subscriptions: lookups of many
   * subscribers at one moment are shared (briefly cached, dropped at once on a revocation);
   * null when no longer valid.
   */
  abstract refresh(user: AuthUser): Promise<AuthUser | null>;
  /** Reads the user behind a token afresh (a new operation on an open connection); null when no longer valid. */
  abstract reload(user: AuthUser): Promise<AuthUser | null>;
}

/**
 * Published on the event bus with `{ tokenId }` when a token is revoked: every instance closes
 * the graphql-ws connections opened with it at once (their streams end with them).
 */
export const TOKEN_REVOKED_TOPIC = 'auth.token-revoked';
