import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ChannelListener } from '../../../platform/database/channel-listener';
import { EventBus, Unsubscribe } from '../../../platform/pubsub/event-bus';
import { BatchLoader } from '../../../common/batch-loader';
import { ShortMemo } from '../../../common/short-memo';
import { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { hashToken, parseBearer, tokenUsable } from '../core/token';
import type { ApiTokenEntity } from '../persistence/api-token.entity';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';

/** Tells every instance that what a token grants may have changed (a revocation). */
export const AUTH_CHANGED_TOPIC = 'auth.changed';

/** How often a token's `lastUsedAt` is written at most. */
const TOUCH_EVERY_MS = 60_000;

/** The NOTIFY channel of the `notify_auth_changed` triggers (tokens, users, groups, members). */
export const AUTH_CHANNEL = 'countersign_auth';

/**
 * How long a token's re-check result is reused while this instance LISTENs on AUTH_CHANNEL:
 * every change of what a token grants, by the API or in SQL, drops it at once, and an expiry
 * is checked at every use; the limit is a backstop only.
 */
export const REFRESH_REUSE_MS = 60_000;
/** Without that channel (embedded PGlite, or the connection is being re-opened): briefly. */
export const REFRESH_REUSE_UNLISTENED_MS = 250;

type Known = { user: AuthUser; expiresAt: Date | null } | null;

/**
 * Authenticates personal access tokens: hashed lookup, revocation and expiry. `refresh` (the
 * per-event re-check of subscriptions) is answered from memory: a token is read once (in a
 * batch with the other tokens re-checked at that moment) and reused until something it grants
 * changes (PostgreSQL NOTIFY on AUTH_CHANNEL from triggers, and `auth.changed` on the event
 * bus for revocations), so an event costs no query per subscriber while a revoked token or a
 * lost grant still counts from the next event.
 */
@Injectable()
export class TokenAuthenticator extends Authenticator implements OnModuleInit, OnModuleDestroy {
  private readonly fresh = new ShortMemo<string, Known>(REFRESH_REUSE_UNLISTENED_MS);
  private readonly changes: ChannelListener;
  private unsubscribe: Unsubscribe | null = null;
  private readonly storeListeners = new Set<() => void>();
  // why: the re-checks of one tick share a statement (keep = false: never one sent before
  // they were asked for), so one event's re-checks for many subscribers are one query.
  private readonly byId = new BatchLoader<string, ApiTokenEntity | null>(
    (id) => id,
    async (ids) => new Map((await this.repository.findTokensWithUsers(ids)).map((t) => [t.id, t])),
    null,
    { keep: false },
  );
  // why: a request's token check is on its critical path, so a lone request's goes at once; the
  // requests arriving with it in the same tick (a burst of clicks, a page's parallel queries)
  // share one statement after it. Never one sent before they were asked for (keep = false): a
  // revocation counts from the next request as before.
  private readonly byHash = new BatchLoader<string, ApiTokenEntity | null>(
    (hash) => hash,
    async (hashes) =>
      new Map((await this.repository.findTokensByHashes(hashes)).map((t) => [t.tokenHash, t])),
    null,
    { keep: false, firstAtOnce: true },
  );

  constructor(
    private readonly repository: AuthRepository,
    private readonly bus: EventBus,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'databaseUrl'>,
  ) {
    super();
    this.changes = new ChannelListener(config.databaseUrl, AUTH_CHANNEL, 'AuthChanges');
  }

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe<{ tokenId?: string }>(AUTH_CHANGED_TOPIC, (e) => {
      if (e.tokenId) this.fresh.forget(e.tokenId);
      else this.fresh.clear();
    });
    // why: also on (re)connecting, since changes made while nobody listened were not heard.
    this.changes.start(() => {
      this.fresh.clear();
      for (const listener of this.storeListeners) listener();
    });
  }

  override onStoreChanged(listener: () => void): () => void {
    this.storeListeners.add(listener);
    return () => void this.storeListeners.delete(listener);
  }

  async onModuleDestroy(): Promise<void> {
    await this.changes.stop();
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
    const stored = await this.byHash.load(hashToken(token));
    const now = new Date();
    if (!stored?.user || !tokenUsable(stored, now)) return null;
    // why: use is recorded at most once a minute; skipping the UPDATE here keeps an ordinary
    // request free of writes.
    if (!stored.lastUsedAt || now.getTime() - new Date(stored.lastUsedAt).getTime() >= TOUCH_EVERY_MS) {
      await this.repository.touchToken(stored.id, now);
    }
    const user = toAuthUser(stored.user, stored.id);
    return stored.expiresAt ? { ...user, tokenExpiresAt: new Date(stored.expiresAt) } : user;
  }

  async reload(user: AuthUser): Promise<AuthUser | null> {
    const stored = await this.repository.findTokenWithUser(user.tokenId);
    if (!stored?.user || !tokenUsable(stored, new Date())) return null;
    return toAuthUser(stored.user, stored.id);
  }

  async refresh(user: AuthUser): Promise<AuthUser | null> {
    const reuse = this.changes.listening ? REFRESH_REUSE_MS : REFRESH_REUSE_UNLISTENED_MS;
    return usableNow(await this.fresh.get(user.tokenId, () => this.lookUp(user.tokenId), reuse));
  }

  override refreshNow(user: AuthUser): AuthUser | null | undefined {
    const hit = this.fresh.peek(user.tokenId);
    return hit ? usableNow(hit.value) : undefined;
  }

  /** A token's re-check (batched with the others of this tick), as `refresh` keeps it. */
  private async lookUp(tokenId: string): Promise<Known> {
    const stored = await this.byId.load(tokenId);
    return stored?.user && tokenUsable(stored, new Date())
      ? { user: toAuthUser(stored.user, stored.id), expiresAt: stored.expiresAt }
      : null;
  }
}

/** The user a known token answers for, unless it has expired since it was read. */
function usableNow(known: Known): AuthUser | null {
  if (!known || !tokenUsable({ revokedAt: null, expiresAt: known.expiresAt }, new Date())) return null;
  return known.user;
}
