import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { UserEntity } from '../../auth/persistence/user.entity';
import { TurnRecord } from './turn-record';

/**
 * One approval of a turn that needs a quorum (docs/decisions.md, "Quorums"): who approved
 * which turn, on which digest. Unique per (run, turn, voter): a person counts once per turn.
 * The vote that completes the quorum is also the turn's decision record.
 */
@Entity({ name: 'approval_vote' })
@Index('approval_vote_uq', ['runId', 'turn', 'voterId'], { unique: true })
@Index('approval_vote_idempotency_uq', ['runId', 'voterId', 'idempotencyKey'], {
  unique: true,
  where: '"idempotency_key" IS NOT NULL',
})
export class ApprovalVoteEntity extends TurnRecord {
  @Column({ name: 'turn_digest', type: 'char', length: 64 })
  turnDigest: string;

  @Column({ name: 'voter_id', type: 'int' })
  voterId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'voter_id' })
  voter?: UserEntity;

  /** INLINE, DURABLE: the path the vote asked for (the completing vote's decides). */
  @Column({ type: 'varchar', length: 16 })
  path: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 200, nullable: true })
  idempotencyKey: string | null;

  /** The decision fingerprint of the vote (kind, digest), to tell a reused key apart. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  @Column({ name: 'voted_at', type: 'timestamptz', default: () => 'now()' })
  votedAt: Date;
}
