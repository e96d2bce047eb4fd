import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { DecisionView } from '../core/decision-view';
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
  async insert(vote: NewVote): Promise<DecisionView | null> {
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
    return row ? voteView({ ...vote, votedAt: row.voted_at }) : null;
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
  async listForTurn(runId: string, turn: number): Promise<DecisionView[]> {
    const votes = await this.m().find(ApprovalVoteEntity, {
      where: { runId, turn },
      order: { votedAt: 'ASC', id: 'ASC' },
    });
    return votes.map(voteView);
  }

  /** The vote a user cast on a run under an idempotency key, if any. */
  async findByKey(runId: string, voterId: number, key: string): Promise<DecisionView | null> {
    const vote = await this.m().findOne(ApprovalVoteEntity, {
      where: { runId, voterId, idempotencyKey: key },
    });
    return vote ? voteView(vote) : null;
  }
}

/** A vote shown as the approval it is (no outcome: the run still waits, or the quorum's decision has it). */
function voteView(v: Omit<ApprovalVoteEntity, 'run' | 'voter'>): DecisionView {
  return {
    id: v.id,
    runId: v.runId,
    turn: v.turn,
    kind: 'APPROVE',
    decidedBy: v.voterId,
    denialReason: null,
    turnDigest: v.turnDigest,
    path: v.path,
    idempotencyKey: v.idempotencyKey,
    fingerprint: v.fingerprint,
    decidedAt: v.votedAt,
    outcome: null,
    settledAt: null,
    handedBackCode: null,
  };
}
