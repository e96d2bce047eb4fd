import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { returnedRows } from '../../../platform/database/query-results';
import type { WebhookEventType } from '../core/event-types';
import type { AttemptView, ClaimedDelivery, DeliveryStatus, DeliveryView } from '../core/webhook-views';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** How a try ended for the delivery: done, tried again at `nextAt`, or given up. */
export type AttemptOutcome =
  | { readonly status: 'SUCCEEDED' }
  | { readonly status: 'PENDING'; readonly nextAt: Date }
  | { readonly status: 'FAILED' };

export interface DeliveryFilter {
  readonly endpointId: string | null;
  readonly eventId: string | null;
}

/** The outbox rows (`webhook_delivery`) and their tries (`webhook_attempt`). */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One row per enabled endpoint subscribed to the event, in ONE statement, in the caller's
   * transaction. Returns how many endpoints it was queued for.
   */
  async enqueue(event: {
    id: string;
    type: WebhookEventType;
    runId: string | null;
    payload: unknown;
  }): Promise<number> {
    const rows = await managerOf(this.dataSource).query<unknown[]>(
      `INSERT INTO webhook_delivery (id, endpoint_id, event_id, event_type, run_id, payload)
       SELECT gen_random_uuid(), e.id, CAST($1 AS uuid), CAST($2 AS text), CAST($3 AS uuid), CAST($4 AS jsonb)
         FROM webhook_endpoint e WHERE e.enabled AND CAST($2 AS text) = ANY(e.event_types)
       RETURNING 1`,
      [event.id, event.type, event.runId, JSON.stringify(event.payload)],
    );
    return rows.length;
  }

  /**
   * Takes up to `limit` due deliveries under a lease of `leaseMs` (SKIP LOCKED: workers never
   * take the same one). A delivery waits while an earlier one of the same run for the same
   * endpoint is still pending, so a receiver hears of a run's events in order.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    // why: MATERIALIZED, as the run claims do: the locking sub-select must run once.
    const result: unknown = await managerOf(this.dataSource).query(
      `WITH due AS MATERIALIZED (
         SELECT c.id FROM webhook_delivery c
          WHERE c.status = 'PENDING' AND c.next_attempt_at <= clock_timestamp()
            AND (c.locked_until IS NULL OR c.locked_until < clock_timestamp())
            AND (c.run_id IS NULL OR NOT EXISTS (
                  SELECT 1 FROM webhook_delivery p
                   WHERE p.status = 'PENDING' AND p.endpoint_id = c.endpoint_id
                     AND p.run_id = c.run_id AND p.seq < c.seq))
          ORDER BY c.next_attempt_at, c.seq
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_delivery d
          SET locked_until = clock_timestamp() + make_interval(secs => CAST($2 AS double precision) / 1000)
         FROM due, webhook_endpoint e
        WHERE d.id = due.id AND e.id = d.endpoint_id
        RETURNING d.id, d.event_id, d.event_type, d.payload, d.attempts, d.created_at, e.url, e.secret`,
      [limit, leaseMs],
    );
    const rows = returnedRows<{
      id: string;
      event_id: string;
      event_type: WebhookEventType;
      payload: unknown;
      attempts: number;
      created_at: Date;
      url: string;
      secret: string;
    }>(result);
    return rows.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      payload: r.payload,
      attempts: r.attempts,
      createdAt: new Date(r.created_at),
      url: r.url,
      secret: r.secret,
    }));
  }

  /** Records a try and what it means for the delivery (in the caller's transaction). */
  async recordAttempt(deliveryId: string, attempt: AttemptView, outcome: AttemptOutcome): Promise<void> {
    const m = managerOf(this.dataSource);
    await m.insert(WebhookAttemptEntity, { deliveryId, ...attempt });
    await m.query(
      `UPDATE webhook_delivery
          SET attempts = attempts + 1, status = CAST($2 AS text), locked_until = NULL,
              next_attempt_at = COALESCE(CAST($3 AS timestamptz), next_attempt_at),
              finished_at = CASE WHEN CAST($2 AS text) = 'PENDING' THEN NULL ELSE clock_timestamp() END
        WHERE id = $1`,
      [deliveryId, outcome.status, outcome.status === 'PENDING' ? outcome.nextAt : null],
    );
  }

  /** A new pending delivery of the same event to the same endpoint; null when there is none. */
  async replay(deliveryId: string): Promise<string | null> {
    const rows = await managerOf(this.dataSource).query<Array<{ id: string }>>(
      `INSERT INTO webhook_delivery (id, endpoint_id, event_id, event_type, run_id, payload, replay_of)
       SELECT gen_random_uuid(), d.endpoint_id, d.event_id, d.event_type, d.run_id, d.payload, d.id
         FROM webhook_delivery d WHERE d.id = $1
       RETURNING id`,
      [deliveryId],
    );
    return rows[0]?.id ?? null;
  }

  /** Deliveries newest first (by `seq`), before `beforeSeq` when given, with their tries. */
  async page(filter: DeliveryFilter, beforeSeq: string | null, limit: number): Promise<DeliveryView[]> {
    const m = managerOf(this.dataSource);
    const qb = m.createQueryBuilder(WebhookDeliveryEntity, 'd').where('TRUE');
    if (filter.endpointId) qb.andWhere('d.endpoint_id = :endpointId', filter);
    if (filter.eventId) qb.andWhere('d.event_id = :eventId', filter);
    if (beforeSeq !== null) qb.andWhere('d.seq < CAST(:beforeSeq AS bigint)', { beforeSeq });
    const rows = await qb.orderBy('d.seq', 'DESC').limit(limit).getMany();
    return this.withAttempts(rows);
  }

  async find(id: string): Promise<DeliveryView | null> {
    const row = await managerOf(this.dataSource).findOneBy(WebhookDeliveryEntity, { id });
    return row ? (await this.withAttempts([row]))[0]! : null;
  }

  private async withAttempts(rows: WebhookDeliveryEntity[]): Promise<DeliveryView[]> {
    if (rows.length === 0) return [];
    const attempts = await managerOf(this.dataSource)
      .createQueryBuilder(WebhookAttemptEntity, 'a')
      .where('a.delivery_id IN (:...ids)', { ids: rows.map((r) => r.id) })
      .orderBy('a.id', 'ASC')
      .getMany();
    const byDelivery = new Map<string, AttemptView[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.deliveryId) ?? [];
      list.push({
        attemptedAt: a.attemptedAt,
        statusCode: a.statusCode,
        error: a.error,
        durationMs: a.durationMs,
      });
      byDelivery.set(a.deliveryId, list);
    }
    return rows.map((r) => ({
      id: r.id,
      seq: String(r.seq),
      endpointId: r.endpointId,
      eventId: r.eventId,
      eventType: r.eventType as WebhookEventType,
      runId: r.runId,
      payload: r.payload,
      status: r.status as DeliveryStatus,
      attempts: byDelivery.get(r.id) ?? [],
      nextAttemptAt: r.status === 'PENDING' ? r.nextAttemptAt : null,
      replayOf: r.replayOf,
      createdAt: r.createdAt,
      finishedAt: r.finishedAt,
    }));
  }
}
