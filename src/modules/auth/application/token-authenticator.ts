import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventBus, Unsubscribe } from '../../../platform/pubsub/event-bus';
import { ShortMemo } from '../../../common/short-memo';
import { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { hashToken, parseBearer, tokenUsable } from '../core/token';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';

/** Tells every instance that what a token grants may have changed (a revocation). */
export const AUTH_CHANGED_TOPIC = 'auth.changed';

/** How often a token's `lastUsedAt` is written at most. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Authenticates personal access tokens: hashed lookup, revocation and expiry. `refresh` (the
 * per-event re-check of subscriptions) shares one lookup between the subscribers of an event
 * for a quarter of a second; a revocation anywhere drops the shared result at once.
 */
@Injectable()
export class TokenAuthenticator extends Authenticator implements OnModuleInit, OnModuleDestroy {
  private readonly fresh = new ShortMemo<string, AuthUser | null>(250);
  private unsubscribe: Unsubscribe | null = null;
  private pending: Array<{
    tokenId: string;
    resolve: (user: AuthUser | null) => void;
    reject: (e: unknown) => void;
  }> = [];

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
    // why: use is recorded at most once a minute; skipping the UPDATE here keeps an ordinary
    // request free of writes.
    if (!stored.lastUsedAt || now.getTime() - new Date(stored.lastUsedAt).getTime() >= TOUCH_EVERY_MS) {
      await this.repository.touchToken(stored.id, now);
    }
    return toAuthUser(stored.user, stored.id);
  }

  async reload(user: AuthUser): Promise<AuthUser | null> {
    const stored = await this.repository.findTokenWithUser(user.tokenId);
    if (!stored?.user || !tokenUsable(stored, new Date())) return null;
    return toAuthUser(stored.user, stored.id);
  }

  async refresh(user: AuthUser): Promise<AuthUser | null> {
    return this.fresh.get(user.tokenId, () => this.lookUp(user.tokenId));
  }

  /**
   * Queues a token for the next batched lookup: the re-checks that one event starts for many
   * subscribers (each with their own token) become one query instead of one each.
   */
  private lookUp(tokenId: string): Promise<AuthUser | null> {
    return new Promise((resolve, reject) => {
      this.pending.push({ tokenId, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const rows = await this.repository.findTokensWithUsers([...new Set(batch.map((w) => w.tokenId))]);
      const now = new Date();
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const w of batch) {
        const stored = byId.get(w.tokenId);
        w.resolve(stored?.user && tokenUsable(stored, now) ? toAuthUser(stored.user, stored.id) : null);
      }
    } catch (e) {
      for (const w of batch) w.reject(e);
    }
  }
}
