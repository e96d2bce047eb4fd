import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { REAP_MESSAGES, type ReapCause } from '../core/reap-rule';
import { MAX_REQUEUES, type RunStatus, type TerminationReason } from '../core/run-status';
import { returnedRows } from '../../../platform/database/query-results';
import type { SettledRow, SettleRider } from './run-rows';

/** What the reaper did to one run. */
export interface ReapedRun extends SettledRow {
  readonly id: string;
  readonly status: RunStatus;
  readonly terminationReason: TerminationReason | null;
  /** Why the run was failed; null when it was requeued. */
  readonly cause: ReapCause | null;
  /** The message stored on a failed run (null when requeued). */
  readonly errorMessage: string | null;
}

/** The reaper's one statement (RunSettler.reap runs it in its transaction). */
@Injectable()
export class RunReapingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The reaper: applies the rule of `reap-rule.ts` to runs whose lease expired, in one
   * statement. Requeued: no pending effect, or a transactional one never marked applied (cleared:
   * the run continues from before that write and carries it out once), fewer than MAX_REQUEUES
   * times. Failed: NOT_RETRYABLE for an applied, external or undeclared effect (the effect is
   * kept on the row as evidence), else RETRIES_EXHAUSTED.
   */
  async reapExpired(limit: number, rider: SettleRider | null): Promise<ReapedRun[]> {
    // why: MATERIALIZED runs the locking sub-select once; inlined, PostgreSQL may re-run it
    // per row and lock past the LIMIT. The cause is judged on the locked row, which nobody else
    // can change before the UPDATE of the same statement.
    const result: unknown = await managerOf(this.dataSource).query(
      `WITH due AS MATERIALIZED (
         SELECT id,
                CASE WHEN pending_effect IS NULL THEN NULL
                     WHEN pending_effect ? 'applied' THEN 'EFFECT_APPLIED'
                     WHEN pending_effect->>'effect' = 'transactional' THEN NULL
                     ELSE 'EFFECT_EXTERNAL' END AS effect_cause,
                requeue_count >= $1 AS exhausted
           FROM run WHERE status = 'RUNNING' AND lease_expires_at < now()
          ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED),
       judged AS (
         SELECT id, COALESCE(effect_cause, CASE WHEN exhausted THEN 'RETRIES_EXHAUSTED' END) AS cause FROM due),
       settled AS (
       UPDATE run r SET
           status = CASE WHEN j.cause IS NULL THEN 'QUEUED' ELSE 'FAILED' END,
           termination_reason = CASE WHEN j.cause IS NULL THEN NULL
                                     WHEN j.cause = 'RETRIES_EXHAUSTED' THEN 'RETRIES_EXHAUSTED'
                                     ELSE 'NOT_RETRYABLE' END,
           requeue_count = CASE WHEN j.cause IS NULL THEN r.requeue_count + 1 ELSE r.requeue_count END,
           finished_at = CASE WHEN j.cause IS NULL THEN NULL ELSE now() END,
           checkpoint = CASE WHEN j.cause IS NULL THEN r.checkpoint ELSE NULL END,
           error_message = CASE j.cause WHEN 'EFFECT_APPLIED' THEN $3::text
                                        WHEN 'EFFECT_EXTERNAL' THEN format($4::text, COALESCE(r.pending_effect->>'toolName', 'unknown'))
                                        WHEN 'RETRIES_EXHAUSTED' THEN $5::text
                                        ELSE r.error_message END,
           pending_effect = CASE WHEN j.cause IS NULL THEN NULL ELSE r.pending_effect END,
           claimed_by = NULL, lease_token = NULL, lease_expires_at = NULL
         FROM judged j
         WHERE r.id = j.id AND r.status = 'RUNNING' AND r.lease_expires_at < now()
         RETURNING r.id, r.status, r.termination_reason, j.cause, r.error_message, r.step_count, r.turn, r.had_decision,
                   r.chat_turn, NULL::text AS hand_back_code)${rider ? `,\n       rider AS (${rider.sql})` : ''}
       SELECT id, status, termination_reason, cause, error_message, step_count, turn, had_decision, chat_turn,
              hand_back_code
         FROM settled`,
      [
        MAX_REQUEUES,
        limit,
        REAP_MESSAGES.EFFECT_APPLIED,
        REAP_MESSAGES.EFFECT_EXTERNAL,
        REAP_MESSAGES.RETRIES_EXHAUSTED,
      ],
    );
    const rows = returnedRows<{
      id: string;
      status: RunStatus;
      termination_reason: TerminationReason | null;
      cause: ReapCause | null;
      error_message: string | null;
      step_count: number;
      turn: number;
      had_decision: boolean;
      chat_turn: boolean;
    }>(result);
    return rows.map((r) => ({
      id: r.id,
      status: r.status,
      terminationReason: r.termination_reason,
      cause: r.cause,
      errorMessage: r.cause === null ? null : r.error_message,
      stepCount: r.step_count,
      turn: r.turn,
      hadDecision: r.had_decision,
      chatTurn: r.chat_turn,
    }));
  }
}
