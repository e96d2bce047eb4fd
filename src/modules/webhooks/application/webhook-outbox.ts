import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { WebhookEventType } from '../core/event-types';
import { WebhookDeliveriesRepository } from '../persistence/webhook-deliveries.repository';
import { EnabledEndpoints } from './enabled-endpoints';
import { OutboxSignal } from './outbox-signal';

/** What an event reports: its run (ordering is per run and endpoint) and its `data`. */
export interface OutboxEvent {
  readonly type: WebhookEventType;
  readonly runId: string | null;
  /** Built only when some endpoint subscribes (it may read the database). */
  readonly data: () => Promise<Record<string, unknown>>;
}

/**
 * The one way an event enters the outbox: called INSIDE the transaction of the change it
 * reports, so the rows commit with the change or not at all. With no enabled endpoint for the
 * type it writes (and reads) nothing; otherwise one INSERT ... SELECT queues it for every
 * subscribed endpoint. The delivery loop is woken after the commit.
 */
@Injectable()
export class WebhookOutbox {
  constructor(
    private readonly endpoints: EnabledEndpoints,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    private readonly signal: OutboxSignal,
  ) {}

  /** Whether an event of `type` would be queued now (some enabled endpoint subscribes to it). */
  listensTo(type: WebhookEventType): Promise<boolean> {
    return this.endpoints.anyFor(type);
  }

  /** The event's id (the `webhook-id`), or null when no endpoint wanted it. */
  async record(event: OutboxEvent): Promise<string | null> {
    if (!(await this.listensTo(event.type))) return null;
    return this.transactions.run(async (tx) => {
      const payload = { type: event.type, timestamp: new Date().toISOString(), data: await event.data() };
      const id = randomUUID();
      const queued = await this.deliveries.enqueue({
        id,
        type: event.type,
        runId: event.runId,
        payload,
      });
      if (queued === 0) return null;
      tx.afterCommit(() => this.signal.wake());
      return id;
    });
  }
}
