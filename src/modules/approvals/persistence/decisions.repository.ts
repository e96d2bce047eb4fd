import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { directQuery } from '../../../platform/database/direct-query';
import { EntityColumns } from '../../../platform/database/entity-columns';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { ClaimRider } from '../../runs';
import { DecisionEntity } from './decision.entity';

/** A record's values after its id and run, in the order both INSERTs name their columns. */
function recordValues(d: NewDecision): unknown[] {
  return [d.turn, d.kind, d.decidedBy, d.denialReason, d.turnDigest, d.path, d.idempotencyKey, d.fingerprint];
}

/** A decision record before it is stored: the database sets its time; its outcome comes later. */
export type NewDecision = Omit<DecisionEntity, 'decidedAt' | 'outcome' | 'settledAt' | 'handedBackCode'>;

@Injectable()
export class DecisionsRepository {
  private readonly columns: EntityColumns<DecisionEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.columns = new EntityColumns<DecisionEntity>(dataSource, DecisionEntity, 'd');
  }

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** The decision a user took on a run under an idempotency key, if any. */
  async findByKey(runId: string, userId: number, key: string): Promise<DecisionEntity | null> {
    return managerOf(this.dataSource).findOne(DecisionEntity, {
      where: { runId, decidedBy: userId, idempotencyKey: key },
    });
  }

  /** Stores a decision; one with an `outcome` (an expiry that failed the run) is settled at once. */
  async insert(decision: NewDecision, outcome: string | null = null): Promise<DecisionEntity> {
    const rows: DecisionEntity[] = await this.m().query(
      `INSERT INTO decision (id, run_id, turn, kind, decided_by, denial_reason, turn_digest, path, idempotency_key,
         fingerprint, outcome, settled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $11::varchar IS NULL THEN NULL ELSE now() END)
       RETURNING decided_at, settled_at`,
      [decision.id, decision.runId, ...recordValues(decision), outcome],
    );
    const row = rows[0] as unknown as { decided_at: Date; settled_at: Date | null };
    return {
      ...decision,
      decidedAt: row.decided_at,
      outcome,
      settledAt: row.settled_at,
      handedBackCode: null,
    };
  }

  /**
   * The decision record as a write riding in its claim's statement (`ClaimRider`, over the CTE
   * `claimed`): stored, open (no outcome yet), only where the claim won; `decided_at` is the
   * claim's `now()`.
   */
  static recordRider(decision: NewDecision): ClaimRider {
    return {
      sql: (n) =>
        `INSERT INTO decision (id, run_id, turn, kind, decided_by, denial_reason, turn_digest, path, idempotency_key,
           fingerprint)
         SELECT $${n}::uuid, claimed.id, $${n + 1}::int, $${n + 2}, $${n + 3}::int, $${n + 4}, $${n + 5}, $${n + 6},
                $${n + 7}, $${n + 8}
           FROM claimed`,
      params: [decision.id, ...recordValues(decision)],
    };
  }

  /**
   * The decision record kept in step with its run, as a write riding in every statement that
   * settles runs (`SettleRider`, over the CTE `settled`): a run a decision continued gives the
   * status it settled in to its open decision (no outcome, not handed back; at most one, the
   * newest) as its outcome, or, handed back, the hand-back's code. A requeued run (QUEUED, the
   * reaper's) is not settled and leaves it open.
   */
  static readonly SETTLE_RIDER = {
    // why: the open decision is found by a LATERAL join from the settled runs; as a sub-select
    // in WHERE it is correlated to `settled`, which PostgreSQL cannot inline, and the planner
    // hash-joined a sequential scan of the whole decision table against it.
    sql: `UPDATE decision d
             SET outcome = CASE WHEN s.hand_back_code IS NULL THEN s.status END,
                 handed_back_code = s.hand_back_code, settled_at = now()
            FROM settled s
           CROSS JOIN LATERAL (
                 SELECT o.id FROM decision o
                  WHERE o.run_id = s.id AND o.outcome IS NULL AND o.handed_back_code IS NULL
                  ORDER BY o.turn DESC, o.decided_at DESC LIMIT 1) open
           WHERE s.had_decision AND s.status NOT IN ('QUEUED', 'RUNNING') AND d.id = open.id`,
  } as const;

  async listForRun(runId: string): Promise<DecisionEntity[]> {
    return managerOf(this.dataSource).find(DecisionEntity, { where: { runId }, order: { turn: 'ASC' } });
  }

  /**
   * Decisions by id (unknown ids are absent). why a plain statement (EntityColumns): a durable
   * pickup reads the decisions of every run it claimed, at once.
   */
  async findByIds(ids: readonly string[]): Promise<DecisionEntity[]> {
    if (ids.length === 0) return [];
    const rows = await directQuery(
      this.m(),
      `SELECT ${this.columns.sql()} FROM decision d WHERE d.id = ANY($1::uuid[])`,
      [[...ids]],
    );
    return this.columns.rows(rows);
  }
}
