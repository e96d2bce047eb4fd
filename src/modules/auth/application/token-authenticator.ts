import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventBus, Unsubscribe } from '../../../platform/pubsub/event-bus';
import { ShortMemo } from '../../../shared/short-memo';
import { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { hashToken, parseBearer, tokenUsable } from '../core/token';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';

/** Tells every instance that what a token grants may have changed (a revocation). */
export const AUTH_CHANGED_TOPIC = 'auth.changed';

/**
 * Authenticates personal access tokens: hashed lookup, revocation and expiry. `refresh` (the
 * per-event re-check of subscriptions) shares one lookup between the subscribers of an event
 * for a quarter of a second; a revocation anywhere drops the shared result at once.
 */
@Injectable()
export class TokenAuthenticator extends Authenticator implements OnModuleInit, OnModuleDestroy {
  private readonly fresh = new ShortMemo<string, AuthUser | null>(250);
  private unsubscribe: Unsubscribe | null = null;

  constructor(
    private readonly repository: AuthRepository,
    private readonly bus: EventBus,
  ) {
    super();
  }

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe<{ tokenId?: string }>(AUTH_CHANGED_TOPIC, (e) => {
      if (e.tokenId) this.fresh.forget(e.tokenId);
      else this.fresh.clear();
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** Drops what is known of a token here and on every other instance. */
  async invalidate(tokenId: string): Promise<void> {
    this.fresh.forget(tokenId);
    await this.bus.publish(AUTH_CHANGED_TOPIC, { tokenId });
  }

  async authenticate(authorization: string | undefined | null): Promise<AuthUser | null> {
    const token = parseBearer(authorization);
    if (!token) return null;
    const stored = await this.repository.findTokenByHash(hashToken(token));
    const now = new Date();
    if (!stored?.user || !tokenUsable(stored, now)) return null;
    await this.repository.touchToken(stored.id, now);
    return toAuthUser(stored.user, stored.id);
  }

  async refresh(user: AuthUser): Promise<AuthUser | null> {
    return this.fresh.get(user.tokenId, async () => {
      const stored = await this.repository.findTokenWithUser(user.tokenId);
      if (!stored?.user || !tokenUsable(stored, new Date())) return null;
      return toAuthUser(stored.user, stored.id);
    });
  }
}
