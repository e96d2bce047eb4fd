import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '../../../common/cursor';
import { parseUuid } from '../../../common/ids';
import { badInput, forbidden, notFound } from '../../../common/refusal';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { mayManageWebhooks, type DeliveryView, type Page } from '../core/webhook-views';
import { WebhookDeliveriesRepository } from '../persistence/webhook-deliveries.repository';
import { OutboxSignal } from './outbox-signal';
import type { Actor } from './webhook-endpoints.service';
import { pageSize } from '../../../common/page-size';

const DELIVERIES = 'webhook-deliveries';
const MAX_PAGE = 200;

/**
 * The delivery log admins read (every delivery with every try: status code, error, duration),
 * newest first, for one endpoint or one event or all; and the replay of a delivery: a new
 * delivery of the same event (same `webhook-id`, so a receiver that kept it can tell) to the
 * same endpoint.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    private readonly signal: OutboxSignal,
  ) {}

  async page(
    actor: Actor,
    filter: { endpointId?: string | null; eventId?: string | null },
    first: number,
    after: string | null,
  ): Promise<Page<DeliveryView>> {
    adminOnly(actor);
    const endpointId = filter.endpointId != null ? parseUuid(filter.endpointId, 'endpointId') : null;
    const eventId = filter.eventId != null ? parseUuid(filter.eventId, 'eventId') : null;
    const before = after ? seqOf(after) : null;
    const limit = pageSize(first, MAX_PAGE);
    const rows = await this.repository.page({ endpointId, eventId }, before, limit + 1);
    return {
      edges: rows.slice(0, limit).map((d) => ({ cursor: encodeCursor(DELIVERIES, [d.seq]), node: d })),
      hasNextPage: rows.length > limit,
    };
  }

  async replay(actor: Actor, deliveryId: string): Promise<DeliveryView> {
    adminOnly(actor);
    const id = parseUuid(deliveryId, 'deliveryId');
    const replayed = await this.transactions.run(async (tx) => {
      const newId = await this.repository.replay(id);
      if (newId) tx.afterCommit(() => this.signal.wake());
      return newId;
    });
    if (!replayed) throw notFound('No such webhook delivery');
    return (await this.repository.find(replayed))!;
  }
}

function adminOnly(actor: Actor): void {
  if (!mayManageWebhooks(actor)) throw forbidden('Only admins may read webhook deliveries');
}

function seqOf(cursor: string): string {
  const [seq] = decodeCursor(DELIVERIES, cursor, ['string']);
  if (!/^\d{1,19}$/.test(String(seq)))
    throw badInput('after is not a cursor of this list', { field: 'after' });
  return String(seq);
}
