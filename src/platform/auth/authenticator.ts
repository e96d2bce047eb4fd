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
  /**
   * What `refresh` would answer, when it can be answered without waiting (the token's fresh
   * answer is known here); undefined when it cannot (call `refresh`). Lets the delivery of one
   * event to thousands of subscribers stay synchronous.
   */
  refreshNow(_user: AuthUser): AuthUser | null | undefined {
    return undefined;
  }
  /**
   * Hands `then` what `refresh` answers, with `a` and `b`: at once (synchronously, no promise) when
   * it is known here, else once it has been read. (`then` is built once per stream, not per
   * event: one event reaches thousands of subscribers.)
   */
  withRefreshed<A, B>(
    user: AuthUser,
    a: A,
    b: B,
    then: (fresh: AuthUser | null, a: A, b: B) => void,
  ): Promise<void> | void {
    const known = this.refreshNow(user);
    if (known !== undefined) return then(known, a, b);
    return this.refresh(user).then((fresh) => then(fresh, a, b));
  }
  /** Reads the user behind a token afresh (a new operation on an open connection); null when no longer valid. */
  abstract reload(user: AuthUser): Promise<AuthUser | null>;
  /**
   * Calls `listener` whenever the database says that what some token grants may have changed,
   * whoever changed it (the API, the command line, SQL), after this authenticator dropped what it
   * remembered; returns the way to stop. Without such a signal (the embedded database, whose one
   * session nobody else writes in) it is never called.
   */
  onStoreChanged(_listener: () => void): () => void {
    return () => undefined;
  }
}

/**
 * Published on the event bus with `{ tokenId }` when a token is revoked: every instance closes
 * the graphql-ws connections opened with it at once (their streams end with them).
 */
export const TOKEN_REVOKED_TOPIC = 'auth.token-revoked';
