import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One change to who may do what (a user created, a token created or revoked), with who made it,
 * how and when. Actor and subject are kept as plain values, not foreign keys: the record must
 * outlive the users it names.
 */
@Entity({ name: 'audit_event' })
@Index(['at'])
@Index(['subjectUserId', 'at'])
export class AuditEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @CreateDateColumn({ type: 'timestamptz' })
  at: Date;

  /** `api` (an authenticated user) or `cli` (the command line, with server access). */
  @Column({ type: 'varchar', length: 8 })
  via: string;

  @Column({ name: 'actor_user_id', type: 'int', nullable: true })
  actorUserId: number | null;

  @Column({ name: 'actor_username', type: 'varchar', length: 64, nullable: true })
  actorUsername: string | null;

  /** The token the actor authenticated with (API only). */
  @Column({ name: 'actor_token_id', type: 'uuid', nullable: true })
  actorTokenId: string | null;

  @Column({ type: 'varchar', length: 32 })
  action: string;

  @Column({ name: 'subject_user_id', type: 'int', nullable: true })
  subjectUserId: number | null;

  @Column({ type: 'jsonb', default: {} })
  details: Record<string, unknown>;
}
