import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ShortMemo } from '../../../common/short-memo';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ChannelListener } from '../../../platform/database/channel-listener';
import type { WebhookEventType } from '../core/event-types';
import { WEBHOOKS_CHANNEL, WebhookEndpointsRepository } from '../persistence/webhook-endpoints.repository';

/** Reused this long while this instance LISTENs for endpoint changes (a change clears it at once). */
const REUSE_LISTENED_MS = 60_000;
/** Reused this long without LISTEN (PGlite, a lost connection): a change shows within a second. */
const REUSE_UNLISTENED_MS = 1_000;

/**
 * Which event types some enabled endpoint subscribes to, cached: the decision and settle paths
 * ask it on every change, and most installations have no endpoint for most events, so the
 * answer must cost no query. Every change to the endpoints NOTIFYs at its commit (a trigger); each
 * instance LISTENs and forgets the cache (this instance also forgets it after its own change).
 */
@Injectable()
export class EnabledEndpoints implements OnModuleInit, OnApplicationShutdown {
  private readonly memo = new ShortMemo<'all', ReadonlySet<string>>(REUSE_UNLISTENED_MS);
  private readonly changes: ChannelListener;

  constructor(
    private readonly repository: WebhookEndpointsRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.changes = new ChannelListener(config.databaseUrl, WEBHOOKS_CHANNEL, 'WebhookEndpointChanges');
  }

  onModuleInit(): void {
    this.changes.start(() => this.forget());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.changes.stop();
  }

  /** Whether some enabled endpoint wants events of this type. */
  async anyFor(type: WebhookEventType): Promise<boolean> {
    const reuse = this.changes.listening ? REUSE_LISTENED_MS : REUSE_UNLISTENED_MS;
    const types = await this.memo.get('all', () => this.load(), reuse);
    return types.has(type);
  }

  forget(): void {
    this.memo.clear();
  }

  private async load(): Promise<ReadonlySet<string>> {
    const endpoints = await this.repository.enabled();
    return new Set(endpoints.flatMap((e) => e.eventTypes));
  }
}
