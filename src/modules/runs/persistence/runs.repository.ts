import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { RunStatus, TerminationReason, WAITING_STATUSES } from '../core/run-status';
import { RunStepEntity } from './run-step.entity';
import { RunEntity } from './run.entity';
import type { RunView } from '../core/run-view';

/** The lease a process holds while it executes a run. */
export interface Lease {
  readonly runId: string;
  readonly token: string;
  readonly claimedBy: string;
}

export interface NewRun {
  readonly id: string;
  readonly configurationId: number;
  readonly ownerId: number;
  readonly workspaceId: number;
  readonly subjectPageId: number | null;
  readonly subjectLanguageId: number | null;
  readonly maxIterations: number;
  readonly checkpoint: string;
  readonly predecessorRunId?: string | null;
  readonly skillInvocation?: object | null;
  readonly processPin?: object | null;
  readonly droppedProcess?: object | null;
}

export interface SuspendWrite {
  readonly status: 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT';
  readonly checkpoint: string;
  readonly turn: number;
  readonly turnDigest: string;
  readonly counters: Counters;
}

export interface Counters {
  readonly iterations: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface SettleWrite {
  readonly status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
  readonly reason: TerminationReason;
  readonly truncated?: boolean;
  readonly answer?: string | null;
  readonly errorMessage?: string | null;
  readonly counters?: Counters;
}

/** A decision's claim of a waiting run on the turn (and digest) its decider saw. */
export interface DecisionClaimWrite {
  readonly runId: string;
  readonly from: 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT';
  readonly turn: number;
  readonly turnDigest: string;
  /** The sealed `decided` checkpoint the claim stores. */
  readonly checkpoint: string;
}

export interface StoredStep {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly payload: Record<string, unknown>;
}

const CLEAR_LEASE = 'claimed_by = NULL, lease_token = NULL, lease_expires_at = NULL';
/** What a settling UPDATE hands back, so nobody reads the row again to announce it. */
const SETTLED_ROW = 'RETURNING step_count, turn, had_decision';

/** A run as a settling write left it. */
export interface SettledRow {
  readonly stepCount: number;
  readonly turn: number;
  /** Whether a decision ever continued the run (only then can one be waiting for its outcome). */
  readonly hadDecision: boolean;
}

/**
 * Every run transition as ONE conditional UPDATE that counts only when exactly one row
 * changed (docs/run-lifecycle.md). Writes of an executing segment carry the lease token
 * (fencing): a process whose lease was taken over commits nothing.
 */
@Injectable()
export class RunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** Inserts a run that starts RUNNING under the caller's lease (synchronous start). */
  async insertRunning(run: NewRun, lease: Lease, leaseSeconds: number): Promise<void> {
    await this.m().query(
      `INSERT INTO run (id, configuration_id, owner_id, workspace_id, subject_page_id, subject_language_id,
         max_iterations, status, checkpoint, claimed_by, lease_token, lease_expires_at, started_at,
         predecessor_run_id, skill_invocation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'RUNNING', $8, $9, $10, now() + make_interval(secs => $11), now(), $12, $13)`,
      [
        run.id,
        run.configurationId,
        run.ownerId,
        run.workspaceId,
        run.subjectPageId,
        run.subjectLanguageId,
        run.maxIterations,
        run.checkpoint,
        lease.claimedBy,
        lease.token,
        leaseSeconds,
        run.predecessorRunId ?? null,
        run.skillInvocation ? JSON.stringify(run.skillInvocation) : null,
      ],
    );
  }

  /** Inserts a run that waits QUEUED for a worker. */
  async insertQueued(run: NewRun): Promise<void> {
    await this.m().query(
      `INSERT INTO run (id, configuration_id, owner_id, workspace_id, subject_page_id, subject_language_id,
         max_iterations, status, checkpoint, predecessor_run_id, skill_invocation, process_pin, dropped_process)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'QUEUED', $8, $9, $10, $11, $12)`,
      [
        run.id,
        run.configurationId,
        run.ownerId,
        run.workspaceId,
        run.subjectPageId,
        run.subjectLanguageId,
        run.maxIterations,
        run.checkpoint,
        run.predecessorRunId ?? null,
        run.skillInvocation ? JSON.stringify(run.skillInvocation) : null,
        run.processPin ? JSON.stringify(run.processPin) : null,
        run.droppedProcess ? JSON.stringify(run.droppedProcess) : null,
      ],
    );
  }

  async findById(id: string): Promise<RunEntity | null> {
    return this.m().findOne(RunEntity, { where: { id } });
  }

  async findByIds(ids: readonly string[]): Promise<RunEntity[]> {
    if (ids.length === 0) return [];
    return this.m().createQueryBuilder(RunEntity, 'r').where('r.id IN (:...ids)', { ids }).getMany();
  }

  /**
   * Records one step under the lease: bumps `step_count` (the step's sequence), renews the
   * lease and inserts the step, in one statement. Null when the lease was lost or the run is
   * no longer RUNNING (cancelled, reaped): the caller must stop at once.
   */
  async appendStep(lease: Lease, step: StoredStep, leaseSeconds: number): Promise<number | null> {
    // why: one statement keeps the fencing check and the insert atomic without an explicit
    // transaction, so a step costs one round trip and one commit.
    const rows: Array<{ sequence: number }> = await this.m().query(
      `WITH r AS (
         UPDATE run SET step_count = step_count + 1,
                        lease_expires_at = now() + make_interval(secs => $3)
          WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
          RETURNING step_count)
       INSERT INTO run_step (run_id, sequence, kind, round, duration_ms, payload)
       SELECT $1, r.step_count, $4, $5, $6, $7 FROM r
       RETURNING sequence`,
      [
        lease.runId,
        lease.token,
        leaseSeconds,
        step.kind,
        step.round,
        step.durationMs,
        JSON.stringify(step.payload),
      ],
    );
    return rows[0]?.sequence ?? null;
  }

  /**
   * The inline decision claim: WAITING_* -> RUNNING under a fresh lease with the decided
   * checkpoint, guarded on the waiting status, the turn and its digest the decider saw. One
   * statement, no read back: the caller knows the row it read and what this changed. False
   * when another decision (or a cancel) got there first, or the turn moved on.
   */
  async claimForDecision(claim: DecisionClaimWrite, lease: Lease, leaseSeconds: number): Promise<boolean> {
    return this.affectsOne(
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
    return this.affectsOne(
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
   * Hands a recorded decision back: RUNNING (under the lease) -> the waiting state, the paused
   * state restored, `hand_back` set, claim and lease cleared.
   */
  async handBack(
    lease: Lease,
    to: 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT',
    checkpoint: string,
    code: string,
  ): Promise<SettledRow | null> {
    return this.settledRow(
      `UPDATE run SET status = $3, checkpoint = $4, hand_back = jsonb_build_object('code', $5::text, 'at', now()),
              waiting_since = now(), recorded_at = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
        ${SETTLED_ROW}`,
      [lease.runId, lease.token, to, checkpoint, code],
    );
  }

  /** Gives a run back to the queue at once (a process stopping), where no write is in flight. */
  async requeue(lease: Lease): Promise<boolean> {
    return this.affectsOne(
      `UPDATE run SET status = 'QUEUED', ${CLEAR_LEASE}
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' AND pending_effect IS NULL`,
      [lease.runId, lease.token],
    );
  }

  /** Workers whose heartbeat is fresher than `livenessSeconds`. */
  async countLiveWorkers(livenessSeconds: number): Promise<number> {
    const rows: Array<{ n: number }> = await this.m().query(
      `SELECT count(*)::int AS n FROM worker_heartbeat WHERE last_seen > now() - make_interval(secs => $1)`,
      [livenessSeconds],
    );
    return rows[0]?.n ?? 0;
  }

  /** Replaces the checkpoint of a run this process executes (under its lease). */
  async storeCheckpoint(lease: Lease, checkpoint: string): Promise<boolean> {
    return this.affectsOne(
      `UPDATE run SET checkpoint = $3 WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
      [lease.runId, lease.token, checkpoint],
    );
  }

  /** Extends the lease while a long provider call runs; false when it was lost. */
  async renewLease(lease: Lease, leaseSeconds: number): Promise<boolean> {
    return this.affectsOne(
      `UPDATE run SET lease_expires_at = now() + make_interval(secs => $3)
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
      [lease.runId, lease.token, leaseSeconds],
    );
  }

  /** Marks (or clears, with null) the non-idempotent tool call in flight. */
  async setPendingEffect(
    lease: Lease,
    effect: Record<string, unknown> | null,
    checkpoint?: string,
  ): Promise<boolean> {
    return this.affectsOne(
      `UPDATE run SET pending_effect = $3, checkpoint = COALESCE($4, checkpoint)
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
      [lease.runId, lease.token, effect ? JSON.stringify(effect) : null, checkpoint ?? null],
    );
  }

  /**
   * Marks the pending effect as applied, inside the transaction that applies it (the page
   * write): fenced by the lease, so a process that lost its lease writes nothing, and the
   * reaper can tell an effect that committed from one that never did.
   */
  async markEffectApplied(lease: Lease): Promise<boolean> {
    return this.affectsOne(
      `UPDATE run SET pending_effect = pending_effect || '{"applied": true}'::jsonb
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' AND pending_effect IS NOT NULL`,
      [lease.runId, lease.token],
    );
  }

  /** RUNNING -> WAITING_*: state written, claim and lease cleared. */
  async suspend(lease: Lease, write: SuspendWrite): Promise<SettledRow | null> {
    return this.settledRow(
      `UPDATE run SET status = $3, checkpoint = $4, turn = $5, turn_digest = $6, waiting_since = now(),
              iterations = $7, prompt_tokens = $8, completion_tokens = $9, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
        ${SETTLED_ROW}`,
      [
        lease.runId,
        lease.token,
        write.status,
        write.checkpoint,
        write.turn,
        write.turnDigest,
        write.counters.iterations,
        write.counters.promptTokens,
        write.counters.completionTokens,
      ],
    );
  }

  /** RUNNING -> terminal under the lease; clears state, claim and lease. */
  async settle(lease: Lease, write: SettleWrite): Promise<SettledRow | null> {
    return this.settledRow(
      `UPDATE run SET status = $3, termination_reason = $4, truncated = $5, answer = $6, error_message = $7,
              iterations = COALESCE($8, iterations), prompt_tokens = COALESCE($9, prompt_tokens),
              completion_tokens = COALESCE($10, completion_tokens),
              finished_at = now(), checkpoint = NULL, turn_digest = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
        ${SETTLED_ROW}`,
      [
        lease.runId,
        lease.token,
        write.status,
        write.reason,
        write.truncated ?? false,
        write.answer ?? null,
        write.errorMessage ?? null,
        write.counters?.iterations ?? null,
        write.counters?.promptTokens ?? null,
        write.counters?.completionTokens ?? null,
      ],
    );
  }

  /** A settle guarded on a status instead of a lease (e.g. failing a waiting run). */
  async settleFrom(
    runId: string,
    from: readonly RunStatus[],
    write: SettleWrite,
  ): Promise<SettledRow | null> {
    return this.settledRow(
      `UPDATE run SET status = $3, termination_reason = $4, error_message = $5, finished_at = now(),
              checkpoint = NULL, turn_digest = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND status = ANY($2::varchar[])
        ${SETTLED_ROW}`,
      [runId, from, write.status, write.reason, write.errorMessage ?? null],
    );
  }

  /** Cancel: a settle to CANCELLED from QUEUED, RUNNING or WAITING_*; two cancels cannot both win. */
  async cancel(runId: string, from: readonly RunStatus[]): Promise<SettledRow | null> {
    return this.settledRow(
      `UPDATE run SET status = 'CANCELLED', termination_reason = 'CANCELLED', finished_at = now(),
              checkpoint = NULL, turn_digest = NULL, pending_effect = NULL, ${CLEAR_LEASE}
        WHERE id = $1 AND status = ANY($2::varchar[])
        ${SETTLED_ROW}`,
      [runId, from],
    );
  }

  /** A page of runs, newest first, with the total count. */
  async list(query: {
    ownerId: number | null;
    configurationId: number | null;
    statuses: readonly string[] | null;
    first: number;
    offset: number;
  }): Promise<{ nodes: RunEntity[]; totalCount: number }> {
    const qb = this.m().createQueryBuilder(RunEntity, 'r');
    if (query.ownerId !== null) qb.andWhere('r.owner_id = :ownerId', { ownerId: query.ownerId });
    if (query.configurationId !== null) {
      qb.andWhere('r.configuration_id = :configurationId', { configurationId: query.configurationId });
    }
    if (query.statuses && query.statuses.length > 0)
      qb.andWhere('r.status IN (:...statuses)', { statuses: query.statuses });
    const [nodes, totalCount] = await qb
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'ASC')
      .skip(query.offset)
      .take(query.first)
      .getManyAndCount();
    return { nodes, totalCount };
  }

  /** Waiting runs, oldest wait first (the inbox); `ownerId` null for every owner. */
  async listWaiting(ownerId: number | null, first: number, offset: number): Promise<RunEntity[]> {
    const qb = this.m()
      .createQueryBuilder(RunEntity, 'r')
      .where('r.status IN (:...statuses)', { statuses: WAITING_STATUSES });
    if (ownerId !== null) qb.andWhere('r.owner_id = :ownerId', { ownerId });
    return qb
      .orderBy('r.waiting_since', 'ASC', 'NULLS LAST')
      .addOrderBy('r.id', 'ASC')
      .offset(offset)
      .limit(first)
      .getMany();
  }

  async listSteps(runId: string, afterSequence: number, limit: number): Promise<RunStepEntity[]> {
    return this.m()
      .createQueryBuilder(RunStepEntity, 's')
      .where('s.run_id = :runId AND s.sequence > :after', { runId, after: afterSequence })
      .orderBy('s.sequence', 'ASC')
      .limit(limit)
      .getMany();
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

  /**
   * Whether the APPROVAL / INPUT step of a run's decision on `turn` is recorded (a run cut off
   * right after its worker claimed a recorded decision may lack it).
   */
  async decisionStepRecorded(runId: string, turn: number): Promise<boolean> {
    const rows: unknown[] = await this.m().query(
      `SELECT 1 FROM run_step WHERE run_id = $1 AND kind IN ('APPROVAL', 'INPUT')
          AND (payload->>'turn')::int = $2 LIMIT 1`,
      [runId, turn],
    );
    return rows.length > 0;
  }

  /** A settling UPDATE (RETURNING SETTLED_ROW): what it left, or null when it changed no row. */
  private async settledRow(sql: string, params: unknown[]): Promise<SettledRow | null> {
    const rows = returnedRows<{ step_count: number; turn: number; had_decision: boolean }>(
      await this.m().query(sql, params),
    );
    const row = rows.length === 1 ? rows[0]! : null;
    return row && { stepCount: row.step_count, turn: row.turn, hadDecision: row.had_decision };
  }

  /** Runs a statement and reports whether exactly one row changed. */
  private async affectsOne(sql: string, params: unknown[]): Promise<boolean> {
    const result: unknown = await this.m().query(sql, params);
    return affectedRows(result) === 1;
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
}

/** A run a worker claimed, with the lease it now executes it under. */
export interface ClaimedRun {
  readonly lease: Lease;
  /** The row as the claim left it. */
  readonly run: RunView;
}

const isUpdateResult = (result: unknown): result is [unknown[], number] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number';

/** TypeORM's postgres driver answers an UPDATE / DELETE as [rows, affected], others as rows. */
export function affectedRows(result: unknown): number {
  if (isUpdateResult(result)) return result[1];
  return Array.isArray(result) ? result.length : 0;
}

/** The rows a statement RETURNING something gave back, whatever its command. */
export function returnedRows<T>(result: unknown): T[] {
  if (isUpdateResult(result)) return result[0] as T[];
  return Array.isArray(result) ? (result as T[]) : [];
}
