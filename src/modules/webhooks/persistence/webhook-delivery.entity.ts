import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/**
 * The outbox: one row per event and endpoint, written in the transaction of the change it
 * reports, then delivered by the workers (PENDING -> SUCCEEDED or FAILED). `seq` orders the
 * events of a run for one endpoint; `locked_until` is the lease of the worker sending it.
 * No foreign key to the run: a delivery outlives the run's retention.
 */
@Entity({ name: 'webhook_delivery' })
@Index('webhook_delivery_due_idx', ['nextAttemptAt'], { where: `"status" = 'PENDING'` })
@Index('webhook_delivery_endpoint_seq_idx', ['endpointId', 'seq'])
@Index('webhook_delivery_event_idx', ['eventId'])
@Index('webhook_delivery_pending_run_idx', ['endpointId', 'runId', 'seq'], { where: `"status" = 'PENDING'` })
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'bigint', generated: 'increment' })
  seq: string;

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id' })
  endpoint?: WebhookEndpointEntity;

  /** The `webhook-id`: the same for every endpoint told of the event, and for a replay. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: string;

  @Column({ name: 'run_id', type: 'uuid', nullable: true })
  runId: string | null;

  @Column({ type: 'jsonb' })
  payload: unknown;

  /** PENDING, SUCCEEDED, FAILED */
  @Column({ type: 'varchar', length: 16, default: 'PENDING' })
  status: string;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  /** The delivery this one replays, when an admin asked for it again. */
  @Column({ name: 'replay_of', type: 'uuid', nullable: true })
  replayOf: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
