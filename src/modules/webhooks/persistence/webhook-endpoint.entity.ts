import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A receiver admins registered: where to POST, which events, and the signing secret (kept to
 * sign with, so stored as given: `whsec_` and base64, shown to the admin once).
 */
@Entity({ name: 'webhook_endpoint' })
export class WebhookEndpointEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'text' })
  url: string;

  /** Wire names (`run.waiting`, ...). */
  @Column({ name: 'event_types', type: 'text', array: true })
  eventTypes: string[];

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'varchar', length: 200 })
  secret: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  description: string;

  @Column({ name: 'created_by', type: 'int', nullable: true })
  createdBy: number | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
