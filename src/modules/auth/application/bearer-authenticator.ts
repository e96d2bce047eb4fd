import { Injectable } from '@nestjs/common';
import { ShortMemo } from '../../../common/short-memo';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { Metrics } from '../../../platform/metrics/metrics';
import { Authenticator } from '../../../platform/auth/authenticator';
import { parseBearerJwt } from '../core/identity-claims';
import { hashToken } from '../core/token';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';
import { IdentitySignIn } from './identity-sign-in';
import { IdentityTokenVerifier } from './identity-token-verifier';
import { TokenAuthenticator } from './token-authenticator';

/**
 * The server's one authenticator: tells a personal access token (`cs_…`) from an identity
 * provider's JWT (three base64url parts) by its shape and hands each to its own check. A JWT
 * caller stays valid until the token's `exp`; until then every operation and stream event
 * re-reads the user (their groups) like a personal access token's.
 */
@Injectable()
export class BearerAuthenticator extends Authenticator {
  private readonly fresh = new ShortMemo<string, AuthUser | null>(250);

  constructor(
    private readonly tokens: TokenAuthenticator,
    private readonly verifier: IdentityTokenVerifier,
    private readonly signIn: IdentitySignIn,
    private readonly repository: AuthRepository,
    private readonly metrics: Metrics,
  ) {
    super();
  }

  async authenticate(authorization: string | undefined | null): Promise<AuthUser | null> {
    const jwt = parseBearerJwt(authorization);
    if (jwt === null) return this.tokens.authenticate(authorization);
    const verified = await this.verifier.verify(jwt);
    // why: the id names this token for the connection bookkeeping; the token itself is never kept.
    const signedIn = verified
      ? await this.signIn.signIn(verified, `jwt:${hashToken(jwt).slice(0, 32)}`)
      : null;
    this.metrics.identitySignIn(signedIn ? (signedIn.created ? 'created' : 'signed_in') : 'refused');
    return signedIn?.user ?? null;
  }

  async reload(user: AuthUser): Promise<AuthUser | null> {
    return user.expiresAt ? this.stillSignedIn(user, user.expiresAt) : this.tokens.reload(user);
  }

  async refresh(user: AuthUser): Promise<AuthUser | null> {
    const expiresAt = user.expiresAt;
    if (!expiresAt) return this.tokens.refresh(user);
    return this.fresh.get(user.tokenId, () => this.stillSignedIn(user, expiresAt));
  }

  override refreshNow(user: AuthUser): AuthUser | null | undefined {
    const expiresAt = user.expiresAt;
    if (!expiresAt) return this.tokens.refreshNow(user);
    if (expiresAt.getTime() <= Date.now()) return null;
    return this.fresh.peek(user.tokenId)?.value;
  }

  /** The personal tokens' signal; a JWT caller's remembered user is dropped with it. */
  override onStoreChanged(listener: () => void): () => void {
    return this.tokens.onStoreChanged(() => {
      this.fresh.clear();
      listener();
    });
  }

  private async stillSignedIn(user: AuthUser, expiresAt: Date): Promise<AuthUser | null> {
    if (expiresAt.getTime() <= Date.now()) return null;
    const stored = await this.repository.findUserWithGroups(user.id);
    return stored ? { ...toAuthUser(stored, user.tokenId), expiresAt } : null;
  }
}
