import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { RunStatus } from '../core/run-status';
import {
  CLEAR_LEASE,
  settledReturning,
  settledRow,
  settleUnderLease,
  type Lease,
  type SettledRow,
  type SettleRider,
  type SettleWrite,
  type StoredStep,
  type SuspendWrite,
} from './run-rows';

/**
 * The statements that settle one run (`RunSettler` is their one caller): each ONE conditional
 * UPDATE that counts only when exactly one row changed, fenced by the lease where a segment
 * settles its own run, with the settle rider (the decision's bookkeeping) in the same statement.
 */
@Injectable()
export class RunSettlingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /**
   * RUNNING -> WAITING_*: state written, claim and lease cleared. An approval wait gets its
   * deadline from the configuration's timeout, timed by PostgreSQL (null: no deadline).
   */
  async suspend(
    lease: Lease,
    write: SuspendWrite,
    steps: readonly StoredStep[],
    rider: SettleRider | null,
  ): Promise<SettledRow | null> {
    return settleUnderLease(
      this.m(),
      lease,
      `status = $3, checkpoint = $4, turn = $5, turn_digest = $6, waiting_since = now(),
       expires_at = CASE WHEN $3::varchar = 'WAITING_FOR_APPROVAL' THEN (SELECT now() + make_interval(secs => c.approval_timeout_seconds)
         FROM configuration c WHERE c.id = run.configuration_id) END,
       iterations = $7, prompt_tokens = $8, completion_tokens = $9, pending_effect = NULL`,
      [
        write.status,
        write.checkpoint,
        write.turn,
        write.turnDigest,
        write.counters.iterations,
        write.counters.promptTokens,
        write.counters.completionTokens,
      ],
      steps,
      rider,
    );
  }

  /**
   * RUNNING -> terminal under the lease; clears state, claim and lease. `steps`: the segment's
   * last ones, stored in the same statement (`settleUnderLease`); `suspend` likewise.
   */
  async settle(
    lease: Lease,
    write: SettleWrite,
    steps: readonly StoredStep[],
    rider: SettleRider | null,
  ): Promise<SettledRow | null> {
    return settleUnderLease(
      this.m(),
      lease,
      `status = $3, termination_reason = $4, truncated = $5, answer = $6, error_message = $7,
       iterations = COALESCE($8, iterations), prompt_tokens = COALESCE($9, prompt_tokens),
       completion_tokens = COALESCE($10, completion_tokens),
       finished_at = now(), checkpoint = NULL, turn_digest = NULL, pending_effect = NULL`,
      [
        write.status,
        write.reason,
        write.truncated ?? false,
        write.answer ?? null,
        write.errorMessage ?? null,
        write.counters?.iterations ?? null,
        write.counters?.promptTokens ?? null,
        write.counters?.completionTokens ?? null,
      ],
      steps,
      rider,
    );
  }

  /** A settle guarded on a status instead of a lease (e.g. failing a waiting run). */
  async settleFrom(
    runId: string,
    from: readonly RunStatus[],
    write: SettleWrite,
    rider: SettleRider | null,
  ): Promise<SettledRow | null> {
    await this.lockRow(runId);
    return settledRow(
      this.m(),
      `UPDATE run SET status = $3, termination_reason = $4, error_message = $5, finished_at = now(),
              checkpoint = NULL, turn_digest = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND status = ANY($2::varchar[])
        ${settledReturning()}`,
      [runId, from, write.status, write.reason, write.errorMessage ?? null],
      rider,
    );
  }

  /** Cancel: a settle to CANCELLED from QUEUED, RUNNING or WAITING_*; two cancels cannot both win. */
  async cancel(
    runId: string,
    from: readonly RunStatus[],
    rider: SettleRider | null,
  ): Promise<SettledRow | null> {
    await this.lockRow(runId);
    return settledRow(
      this.m(),
      `UPDATE run SET status = 'CANCELLED', termination_reason = 'CANCELLED', finished_at = now(),
              checkpoint = NULL, turn_digest = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND status = ANY($2::varchar[])
        ${settledReturning()}`,
      [runId, from],
      rider,
    );
  }

  /**
   * Locks the run's row until the transaction ends, before a settle guarded on a status.
   * why: such a settle may overtake a decision's claim (WAITING_* -> RUNNING is cancellable
   * too). A statement that waited for the claim's commit updates the run as the claim left it,
   * but reads every other table as it was when the statement began: its rider did not see the
   * decision the claim inserted and left that decision without an outcome (the soak caught a
   * cancel doing so). Once the lock is held, the settling statement begins after the claim's
   * commit and sees it whole.
   */
  private async lockRow(runId: string): Promise<void> {
    await this.m().query(`SELECT 1 FROM run WHERE id = $1 FOR UPDATE`, [runId]);
  }

  /**
   * Hands a recorded decision back: RUNNING (under the lease) -> the waiting state, the paused
   * state restored, `hand_back` set, claim and lease cleared.
   */
  async handBack(
    lease: Lease,
    to: 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT',
    checkpoint: string,
    code: string,
    rider: SettleRider | null,
  ): Promise<SettledRow | null> {
    return settledRow(
      this.m(),
      `UPDATE run SET status = $3, checkpoint = $4, hand_back = jsonb_build_object('code', $5::text, 'at', now()),
              waiting_since = now(), recorded_at = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
        ${settledReturning('$5::text')}`,
      [lease.runId, lease.token, to, checkpoint, code],
      rider,
    );
  }
}
