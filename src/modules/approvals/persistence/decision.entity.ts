import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { TurnRecord } from './turn-record';

/**
 * The audit record of a decision that passed the claim: who (the authenticated user), what,
 * on which turn and digest, by which path, and the outcome its continuation settled in.
 * Unique per (run, turn): one decision per pause. Input values are never stored here.
 */
@Entity({ name: 'decision' })
@Index('decision_run_turn_uq', ['runId', 'turn'], { unique: true, where: '"handed_back_code" IS NULL' })
@Index('decision_idempotency_uq', ['runId', 'decidedBy', 'idempotencyKey'], {
  unique: true,
  where: '"idempotency_key" IS NOT NULL',
})
export class DecisionEntity extends TurnRecord {
  /** APPROVE, DENY, INPUT, EXPIRE */
  @Column({ type: 'varchar', length: 16 })
  kind: string;

  /** Null for EXPIRE: the deadline passed and nobody decided. */
  @Column({ name: 'decided_by', type: 'int', nullable: true })
  decidedBy: number | null;

  @ManyToOne('app_user', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'decided_by' })
  decider?: { id: number };

  /** VARIANT, SKIP */
  @Column({ name: 'denial_reason', type: 'varchar', length: 16, nullable: true })
  denialReason: string | null;

  @Column({ name: 'decided_at', type: 'timestamptz', default: () => 'now()' })
  decidedAt: Date;

  /** The status the continuation settled in, once it has. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  outcome: string | null;

  @Column({ name: 'settled_at', type: 'timestamptz', nullable: true })
  settledAt: Date | null;

  /** Set when a worker could not carry the decision out and handed the run back (its code). */
  @Column({ name: 'handed_back_code', type: 'varchar', length: 40, nullable: true })
  handedBackCode: string | null;
}
