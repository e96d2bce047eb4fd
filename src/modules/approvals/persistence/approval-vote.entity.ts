import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
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
  @Column({ name: 'voter_id', type: 'int' })
  voterId: number;

  @ManyToOne('app_user', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'voter_id' })
  voter?: { id: number };

  @Column({ name: 'voted_at', type: 'timestamptz', default: () => 'now()' })
  votedAt: Date;
}
