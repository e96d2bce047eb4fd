import { AuthUser } from './auth-user';

/** Resolves a bearer token to a user; implemented by the auth module. */
export abstract class Authenticator {
  /** The user for an `Authorization` value (`Bearer cs_...`), or null when not valid now. */
  abstract authenticate(authorization: string | undefined | null): Promise<AuthUser | null>;
  /** Re-reads the user behind a token (for per-event checks); null when no longer valid. */
  abstract refresh(user: AuthUser): Promise<AuthUser | null>;
}
