import { Injectable } from '@nestjs/common';
import { TOKEN_REVOKED_TOPIC } from '../../../platform/auth/authenticator';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { badInput, forbidden, notFound } from '../../../common/refusal';
import { normalizeNewToken } from '../core/identity';
import { generateToken, hashToken } from '../core/token';
import {
  mayAdministerUsers,
  mayManageTokensOf,
  tokenCreation,
  tokenExpiryProblem,
  tokenOwnerScope,
} from '../core/token-access.policy';
import type { TokenView } from '../core/token-view';
import { AuditTrail } from './audit-trail';
import { TokenAuthenticator } from './token-authenticator';
import { ApiTokensRepository } from '../persistence/api-tokens.repository';
import { AuthRepository } from '../persistence/auth.repository';

/** A token as created: the secret is shown this once, only its SHA-256 is kept. */
export interface CreatedToken {
  readonly tokenId: string;
  readonly token: string;
}

/** Personal access tokens: creation (shown once), listing and revocation, all audited. */
@Injectable()
export class TokensService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly tokens: ApiTokensRepository,
    private readonly authenticator: TokenAuthenticator,
    private readonly auth: AuthRepository,
    private readonly bus: EventBus,
    private readonly audit: AuditTrail,
  ) {}
  /**
   * Creates a token: through the API for the caller themselves only, on the command line (the
   * system) for anyone. A token created by a token expires no later than it. Records who
   * created it (the column, the audit trail, a log line).
   * Refusals, before any write: BAD_USER_INPUT (label empty or over 200 characters, expiry not
   * in the future, or later than the creating token's), FORBIDDEN (an admin asking for another
   * user: such tokens come from the command line), NOT_FOUND (no such user, or another user's
   * id for a non-admin: the same answer, so a non-admin cannot probe which user ids exist).
   */
  async create(
    ctx: RequestContext,
    request: { userId: number; label: string; expiresAt?: Date | null },
  ): Promise<CreatedToken> {
    const spec = normalizeNewToken(request, new Date());
    const access = tokenCreation(ctx.user, spec.userId);
    if (access === 'forbidden') {
      throw forbidden(
        'Tokens for another user are created on the command line (npm run cli -- token create --user <name>)',
      );
    }
    if (access === 'not-found') throw noSuchUser();
    const token = generateToken();
    const tokenId = await this.tx.run(async (tx) => {
      if (ctx.user) {
        const creatorExpiry = (await this.tokens.expiryOf(ctx.user.tokenId)) ?? null;
        const problem = tokenExpiryProblem(spec.expiresAt, creatorExpiry);
        if (problem) throw badInput(problem, { field: 'expiresAt' });
      }
      const id = await this.tokens.insert(spec, hashToken(token), ctx.user?.id ?? null);
      if (id === null) throw noSuchUser();
      await this.audit.record(tx, ctx.user, 'TOKEN_CREATED', spec.userId, {
        tokenId: id,
        label: spec.label,
        expiresAt: spec.expiresAt?.toISOString() ?? null,
      });
      return id;
    });
    return { tokenId, token };
  }

  /**
   * A user's tokens (the caller's own when `userId` is null), newest first, revoked and expired
   * ones included. Admins for anyone, a user for themselves; NOT_FOUND otherwise (as for a user
   * that does not exist).
   */
  async list(ctx: RequestContext, userId: number | null): Promise<TokenView[]> {
    const owner = userId ?? ctx.viewer.id;
    if (!mayManageTokensOf(ctx.user, owner)) throw noSuchUser();
    return this.tokens.listOf(owner);
  }

  /**
   * Revokes a token: admins (and the system) any token, a user their own; `ownerId` narrows it
   * to that user's tokens (the command line names the user). Idempotent: true again for a token
   * already revoked (its first revocation time is kept).
   * Refusal: NOT_FOUND for an unknown token and for another user's token alike.
   */
  async revoke(ctx: RequestContext, tokenId: string, ownerId: number | null = null): Promise<true> {
    await this.tx.run(async (tx) => {
      const owner = await this.tokens.revoke(tokenId, tokenOwnerScope(ctx.user) ?? ownerId, new Date());
      if (owner === null) throw notFound('No such token');
      await this.audit.record(tx, ctx.user, 'TOKEN_REVOKED', owner, { tokenId });
    });
    await this.ended(tokenId);
    return true;
  }

  /** How many active tokens each user holds (users without any are absent). Admins (and the system) only. */
  async activeCounts(ctx: RequestContext): Promise<Map<number, number>> {
    if (!mayAdministerUsers(ctx.user)) throw forbidden('Only admins may count the tokens of every user');
    return this.tokens.activeCounts(new Date());
  }

  /**
   * Tells every instance a token is gone. why: subscriptions re-check their token per event
   * through a short shared cache, which must drop it at once; and a stream opened with the
   * token ends now, not at its next event (which may never come).
   */
  private async ended(tokenId: string): Promise<void> {
    await this.authenticator.invalidate(tokenId);
    await this.bus.publish(TOKEN_REVOKED_TOPIC, { tokenId });
  }

  /**
   * Revokes every token of a user that is not yet revoked (the caller's own included when they
   * name themselves); how many were revoked now. Admins (and the system) for anyone, a user
   * for themselves; NOT_FOUND otherwise (as for a user that does not exist, and for no user).
   */
  async revokeAll(ctx: RequestContext, userId: number): Promise<number> {
    if (!mayManageTokensOf(ctx.user, userId)) throw noSuchUser();
    const revoked = await this.tx.run(async (tx) => {
      if (!(await this.auth.findUserWithGroups(userId))) throw noSuchUser();
      const ids = await this.tokens.revokeAllOf(userId, new Date());
      await this.audit.record(tx, ctx.user, 'TOKENS_REVOKED', userId, { tokenIds: ids, count: ids.length });
      return ids;
    });
    for (const id of revoked) await this.ended(id);
    return revoked.length;
  }
}

const noSuchUser = () => notFound('No such user');
