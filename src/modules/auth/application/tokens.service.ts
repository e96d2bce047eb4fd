import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { TOKEN_REVOKED_TOPIC } from '../../../platform/auth/authenticator';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { notFound } from '../../../common/refusal';
import { normalizeNewToken } from '../core/identity';
import { generateToken, hashToken, tokenUsable } from '../core/token';
import { mayManageTokensOf, tokenOwnerScope } from '../core/token-access.policy';
import { TokenAuthenticator } from './token-authenticator';
import { ApiTokensRepository } from '../persistence/api-tokens.repository';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';

/** A token as created: the secret is shown this once, only its SHA-256 is kept. */
export interface CreatedToken {
  readonly tokenId: string;
  readonly token: string;
}

/** Personal access tokens: creation (shown once) and revocation. */
@Injectable()
export class TokensService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly tokens: ApiTokensRepository,
    private readonly authenticator: TokenAuthenticator,
    private readonly auth: AuthRepository,
    private readonly bus: EventBus,
  ) {}

  /**
   * The user behind the caller's token as stored now, read past the per-event memo of
   * `Authenticator.refresh`: what a subscription checks when it starts. Over graphql-ws the
   * operation's user is the one the connection started with; the token may have been revoked,
   * or the user's grants changed, since. Null when the token is no longer valid.
   */
  async current(user: AuthUser): Promise<AuthUser | null> {
    const stored = await this.auth.findTokenWithUser(user.tokenId);
    if (!stored?.user || !tokenUsable(stored, new Date())) return null;
    return toAuthUser(stored.user, stored.id);
  }

  /**
   * Creates a token for a user: admins (and the system) for anyone, a user for themselves.
   * Refusals, before any write: BAD_USER_INPUT (label empty or over 200 characters, expiry
   * not in the future), NOT_FOUND (no such user, or another user's id for a non-admin: the
   * same answer, so a non-admin cannot probe which user ids exist).
   */
  async create(
    ctx: RequestContext,
    request: { userId: number; label: string; expiresAt?: Date | null },
  ): Promise<CreatedToken> {
    const spec = normalizeNewToken(request, new Date());
    if (!mayManageTokensOf(ctx.user, spec.userId)) throw noSuchUser();
    const token = generateToken();
    const tokenId = await this.tokens.insert(spec, hashToken(token), this.tx.manager);
    if (tokenId === null) throw noSuchUser();
    return { tokenId, token };
  }

  /**
   * Revokes a token: admins (and the system) any token, a user their own. Idempotent: true
   * again for a token already revoked (its first revocation time is kept).
   * Refusal: NOT_FOUND for an unknown token and for another user's token alike.
   */
  async revoke(ctx: RequestContext, tokenId: string): Promise<true> {
    const revoked = await this.tokens.revoke(tokenId, tokenOwnerScope(ctx.user), new Date(), this.tx.manager);
    if (!revoked) throw notFound('No such token');
    // why: subscriptions re-check their token per event through a short shared cache; the
    // revocation must reach it at once, on every instance.
    await this.authenticator.invalidate(tokenId);
    // why: a stream opened with the token ends now, not at its next event (which may never come).
    await this.bus.publish(TOKEN_REVOKED_TOPIC, { tokenId });
    return true;
  }
}

const noSuchUser = () => notFound('No such user');
