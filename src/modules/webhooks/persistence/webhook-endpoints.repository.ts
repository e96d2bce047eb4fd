import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { WebhookEventType } from '../core/event-types';
import type { EndpointView } from '../core/webhook-views';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** The channel the `webhook_endpoint_changed` trigger NOTIFYs on every change of the endpoints. */
export const WEBHOOKS_CHANNEL = 'countersign_webhooks';

export interface EndpointChange {
  readonly url?: string;
  readonly eventTypes?: readonly WebhookEventType[];
  readonly enabled?: boolean;
  readonly description?: string;
  readonly secret?: string;
}

/** The rows of `webhook_endpoint`. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(row: {
    id: string;
    url: string;
    eventTypes: readonly WebhookEventType[];
    enabled: boolean;
    description: string;
    secret: string;
    createdBy: number | null;
  }): Promise<EndpointView> {
    const m = managerOf(this.dataSource);
    await m.insert(WebhookEndpointEntity, { ...row, eventTypes: [...row.eventTypes] });
    return toView(await m.findOneByOrFail(WebhookEndpointEntity, { id: row.id }));
  }

  /** The endpoint after the change, or null when there is none. */
  async update(id: string, change: EndpointChange): Promise<EndpointView | null> {
    const m = managerOf(this.dataSource);
    const set = {
      ...change,
      ...(change.eventTypes ? { eventTypes: [...change.eventTypes] } : {}),
      updatedAt: () => 'now()',
    };
    const result = await m.update(WebhookEndpointEntity, { id }, set as never);
    if (!result.affected) return null;
    return toView((await m.findOneBy(WebhookEndpointEntity, { id }))!);
  }

  async delete(id: string): Promise<boolean> {
    const result = await managerOf(this.dataSource).delete(WebhookEndpointEntity, { id });
    return (result.affected ?? 0) > 0;
  }

  async find(id: string): Promise<EndpointView | null> {
    const row = await managerOf(this.dataSource).findOneBy(WebhookEndpointEntity, { id });
    return row ? toView(row) : null;
  }

  /** Endpoints oldest first, after (created_at, id) when given, with the exact key of each. */
  async page(
    limit: number,
    after: { at: string; id: string } | null,
  ): Promise<Array<{ endpoint: EndpointView; at: string }>> {
    const qb = managerOf(this.dataSource)
      .createQueryBuilder(WebhookEndpointEntity, 'e')
      .addSelect(`to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'at');
    if (after) qb.where('(e.created_at, e.id) > (CAST(:at AS timestamptz), CAST(:id AS uuid))', after);
    const { entities, raw } = await qb
      .orderBy('e.created_at', 'ASC')
      .addOrderBy('e.id', 'ASC')
      .limit(limit)
      .getRawAndEntities<{ at: string }>();
    return entities.map((row, i) => ({ endpoint: toView(row), at: raw[i]!.at }));
  }

  /** Every enabled endpoint's id and events (what the outbox's cache holds). */
  async enabled(): Promise<Array<{ id: string; eventTypes: readonly string[] }>> {
    return managerOf(this.dataSource).find(WebhookEndpointEntity, {
      select: { id: true, eventTypes: true },
      where: { enabled: true },
    });
  }
}

function toView(row: WebhookEndpointEntity): EndpointView {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes as WebhookEventType[],
    enabled: row.enabled,
    description: row.description,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
