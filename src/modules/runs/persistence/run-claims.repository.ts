import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { MAX_REQUEUES, RunStatus, TerminationReason } from '../core/run-status';
import type { RunView } from '../core/run-view';
import { RunEntity } from './run.entity';
import {
  affectsOne,
  returnedRows,
  type ClaimedRun,
  type DecisionClaimWrite,
  type Lease,
  type ReapedRun,
} from './run-rows';

/**
 * The claims that move a run into the hands of one decider or process, each one conditional
 * statement that exactly one of any number of concurrent claimers wins (docs/decisions.md),
 * and the reaper's sweep of expired leases.
 */
@Injectable()
export class RunClaimsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /**
   * The inline decision claim: WAITING_* -> RUNNING under a fresh lease with the decided
   * checkpoint, guarded on the waiting status, the turn and its digest the decider saw. One
   * statement, no read back: the caller knows the row it read and what this changed. False
   * when another decision (or a cancel) got there first, or the turn moved on.
   */
  async claimForDecision(claim: DecisionClaimWrite, lease: Lease, leaseSeconds: number): Promise<boolean> {
    return affectsOne(
      this.m(),
      `UPDATE run SET status = 'RUNNING', had_decision = true, checkpoint = $5, claimed_by = $6, lease_token = $7,
              lease_expires_at = now() + make_interval(secs => $8), waiting_since = NULL, hand_back = NULL
        WHERE id = $1 AND status = $2 AND turn = $3 AND turn_digest = $4`,
      [
        claim.runId,
        claim.from,
        claim.turn,
        claim.turnDigest,
        claim.checkpoint,
        lease.claimedBy,
        lease.token,
        leaseSeconds,
      ],
    );
  }

  /**
   * The durable claim: WAITING_* -> DECISION_RECORDED with the decision sealed into the
   * checkpoint, guarded like the inline claim. False: another decision got there first.
   */
  async recordDecision(claim: DecisionClaimWrite): Promise<boolean> {
    return affectsOne(
      this.m(),
      `UPDATE run SET status = 'DECISION_RECORDED', had_decision = true, checkpoint = $5, recorded_at = now(),
              hand_back = NULL, waiting_since = NULL
        WHERE id = $1 AND status = $2 AND turn = $3 AND turn_digest = $4`,
      [claim.runId, claim.from, claim.turn, claim.turnDigest, claim.checkpoint],
    );
  }

  /**
   * Claims recorded decisions for this process (DECISION_RECORDED -> RUNNING, SKIP LOCKED),
   * oldest first; with `olderThanSeconds` only those recorded at least that long ago.
   */
  async claimRecorded(
    claimedBy: string,
    leaseSeconds: number,
    limit: number,
    olderThanSeconds = 0,
  ): Promise<ClaimedRun[]> {
    if (limit <= 0) return [];
    // why: MATERIALIZED, as in claimQueued: the locking sub-select must run once.
    const result: unknown = await this.m().query(
      `WITH due AS MATERIALIZED (
         SELECT id FROM run WHERE status = 'DECISION_RECORDED' AND recorded_at <= now() - make_interval(secs => $4)
          ORDER BY recorded_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
       UPDATE run r SET status = 'RUNNING', claimed_by = $1, lease_token = gen_random_uuid(),
              lease_expires_at = now() + make_interval(secs => $2)
         FROM due
        WHERE r.id = due.id AND r.status = 'DECISION_RECORDED'
        RETURNING r.*`,
      [claimedBy, leaseSeconds, limit, olderThanSeconds],
    );
    return this.claimsOf(result, claimedBy);
  }

  /**
   * QUEUED -> RUNNING for up to `limit` runs, oldest first, each under a fresh lease of
   * `claimedBy`: one statement, `FOR UPDATE SKIP LOCKED`, so concurrent claimers never get the
   * same run and never wait on each other. `started_at` keeps the first start of a requeued run.
   */
  async claimQueued(claimedBy: string, leaseSeconds: number, limit: number): Promise<ClaimedRun[]> {
    if (limit <= 0) return [];
    // why: MATERIALIZED evaluates the locking sub-select once. As a plain sub-select the planner
    // may put it on the inner side of a nested loop and rescan it; each rescan skips the rows
    // this statement already updated and locks the next ones, so LIMIT is not honoured (seen on
    // PostgreSQL 15 and PGlite). The outer `r.status = 'QUEUED'` re-checks the locked row.
    const result: unknown = await this.m().query(
      `WITH due AS MATERIALIZED (
         SELECT id FROM run WHERE status = 'QUEUED' ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
       UPDATE run r SET status = 'RUNNING', claimed_by = $1, lease_token = gen_random_uuid(),
              lease_expires_at = now() + make_interval(secs => $2), started_at = COALESCE(r.started_at, now())
         FROM due
        WHERE r.id = due.id AND r.status = 'QUEUED'
        RETURNING r.*`,
      [claimedBy, leaseSeconds, limit],
    );
    return this.claimsOf(result, claimedBy);
  }

  /**
   * The reaper: runs whose lease expired are requeued (fewer than MAX_REQUEUES requeues) or
   * failed (RETRIES_EXHAUSTED; NOT_RETRYABLE where a write committed but its result was not
   * recorded: `pending_effect.applied`). A pending effect that never committed is cleared and
   * the run requeued: it continues from before that write, which it then carries out once.
   */
  async reapExpired(limit: number): Promise<ReapedRun[]> {
    // why: MATERIALIZED runs the locking sub-select once; inlined, PostgreSQL may re-run it
    // per row and lock past the LIMIT.
    const result: unknown = await this.m().query(
      `WITH due AS MATERIALIZED (
         SELECT id FROM run WHERE status = 'RUNNING' AND lease_expires_at < now()
          ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE run r SET
           status = CASE WHEN (r.pending_effect ? 'applied') OR r.requeue_count >= $1 THEN 'FAILED' ELSE 'QUEUED' END,
           termination_reason = CASE WHEN (r.pending_effect ? 'applied') THEN 'NOT_RETRYABLE'
                                     WHEN r.requeue_count >= $1 THEN 'RETRIES_EXHAUSTED' ELSE NULL END,
           requeue_count = CASE WHEN NOT COALESCE(r.pending_effect ? 'applied', false) AND r.requeue_count < $1
                                THEN r.requeue_count + 1
                                ELSE r.requeue_count END,
           finished_at = CASE WHEN (r.pending_effect ? 'applied') OR r.requeue_count >= $1 THEN now() ELSE NULL END,
           checkpoint = CASE WHEN (r.pending_effect ? 'applied') OR r.requeue_count >= $1 THEN NULL ELSE r.checkpoint END,
           error_message = CASE WHEN (r.pending_effect ? 'applied')
                                  THEN 'The run stopped inside a write; it is not repeated'
                                WHEN r.requeue_count >= $1 THEN 'The run was retried too often'
                                ELSE r.error_message END,
           -- an effect that never committed (not applied) is cleared: the run continues before it
           pending_effect = CASE WHEN (r.pending_effect ? 'applied') THEN r.pending_effect ELSE NULL END,
           claimed_by = NULL, lease_token = NULL, lease_expires_at = NULL
         FROM due
         WHERE r.id = due.id AND r.status = 'RUNNING' AND r.lease_expires_at < now()
         RETURNING r.id, r.status, r.termination_reason, r.step_count, r.turn, r.had_decision`,
      [MAX_REQUEUES, limit],
    );
    const rows = returnedRows<{
      id: string;
      status: RunStatus;
      termination_reason: TerminationReason | null;
      step_count: number;
      turn: number;
      had_decision: boolean;
    }>(result);
    return rows.map((r) => ({
      id: r.id,
      status: r.status,
      terminationReason: r.termination_reason,
      stepCount: r.step_count,
      turn: r.turn,
      hadDecision: r.had_decision,
    }));
  }

  /** Claimed rows (RETURNING r.*) as runs with the lease each was claimed under; no read back. */
  private claimsOf(result: unknown, claimedBy: string): ClaimedRun[] {
    const columns = this.dataSource.getMetadata(RunEntity).columns;
    return returnedRows<Record<string, unknown>>(result).map((raw) => {
      const run = Object.fromEntries(
        columns.map((c) => [c.propertyName, raw[c.databaseName]]),
      ) as unknown as RunView;
      return { lease: { runId: run.id, token: run.leaseToken!, claimedBy }, run };
    });
  }
}
