import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { ApprovalVoteEntity } from './approval-vote.entity';

export type NewVote = Omit<ApprovalVoteEntity, 'votedAt' | 'run' | 'voter'>;

/** The approvals of quorum turns (docs/decisions.md, "Quorums"). */
@Injectable()
export class ApprovalVotesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** Stores a vote; null where this voter already voted on this turn (or used the key). */
  async insert(vote: NewVote): Promise<ApprovalVoteEntity | null> {
    const rows: Array<{ voted_at: Date }> = await this.m().query(
      `INSERT INTO approval_vote (id, run_id, turn, turn_digest, voter_id, path, idempotency_key, fingerprint)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT DO NOTHING
       RETURNING voted_at`,
      [
        vote.id,
        vote.runId,
        vote.turn,
        vote.turnDigest,
        vote.voterId,
        vote.path,
        vote.idempotencyKey,
        vote.fingerprint,
      ],
    );
    const row = rows[0];
    return row ? { ...vote, votedAt: row.voted_at } : null;
  }

  /** How many distinct people approved this turn. */
  async count(runId: string, turn: number): Promise<number> {
    const rows: Array<{ n: string | number }> = await this.m().query(
      'SELECT count(*) AS n FROM approval_vote WHERE run_id = $1 AND turn = $2',
      [runId, turn],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The approvals of one turn, oldest first. */
  async listForTurn(runId: string, turn: number): Promise<ApprovalVoteEntity[]> {
    return this.m().find(ApprovalVoteEntity, {
      where: { runId, turn },
      order: { votedAt: 'ASC', id: 'ASC' },
    });
  }

  /** The vote a user cast on a run under an idempotency key, if any. */
  async findByKey(runId: string, voterId: number, key: string): Promise<ApprovalVoteEntity | null> {
    return this.m().findOne(ApprovalVoteEntity, { where: { runId, voterId, idempotencyKey: key } });
  }
}
