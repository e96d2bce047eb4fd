import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { directQuery } from '../../../platform/database/direct-query';
import { EntityColumns } from '../../../platform/database/entity-columns';
import type { JoinedRead } from '../../../platform/database/joined-read';
import { returnedRows } from '../../../platform/database/query-results';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { RunView } from '../core/run-view';
import { RunEntity } from './run.entity';
import {
  deadlineGuard,
  NOTIFY_WORKERS,
  type ClaimedRun,
  type ClaimRider,
  type ClaimTaken,
  type DecisionClaimWrite,
  type Lease,
  type StoredStep,
} from './run-rows';

/**
 * Rows of other modules a queued run's claim reads with it (see JoinedRead), joined on the
 * claimed run's keys: the configuration (`configuration_id`), the owner (`owner_id`) and the
 * page it is about (`subject_page_id`, null for a run without one).
 */
export interface StartJoins<C, O, P> {
  readonly configuration: JoinedRead<C>;
  readonly owner: JoinedRead<O>;
  readonly page: JoinedRead<P>;
}

/** A claimed queued run and what the claim's joins found (null where a join found no row). */
export interface JoinedClaim<C, O, P> extends ClaimedRun {
  readonly joined: { readonly configuration: C | null; readonly owner: O | null; readonly page: P | null };
}

/**
 * The claims that move a run into the hands of one decider or process, each one conditional
 * statement that exactly one of any number of concurrent claimers wins (docs/decisions.md).
 * The reaper's sweep is RunReapingRepository.
 */
@Injectable()
export class RunClaimsRepository {
  private readonly columns: EntityColumns<RunView>;
  /** The same columns read from a claim's CTE (`claimed."id"`, ...). */
  private readonly claimed: EntityColumns<RunView>;

  constructor(private readonly dataSource: DataSource) {
    this.columns = new EntityColumns<RunView>(dataSource, RunEntity, 'r');
    this.claimed = new EntityColumns<RunView>(dataSource, RunEntity, 'claimed');
  }

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /**
   * The inline decision claim, the decision's step and the rider (the decision record), in one
   * statement: WAITING_* -> RUNNING under a fresh lease with the decided checkpoint, guarded on
   * the waiting status, the turn and its digest the decider saw, and the step appended at the
   * next sequence. No read back: the caller knows the row it read and what this changed. The
   * step's sequence and the claim's time, or null when another decision (or a cancel) got there
   * first, or the turn moved on: then neither the step nor the rider wrote anything.
   */
  async claimForDecision(
    claim: DecisionClaimWrite,
    lease: Lease,
    leaseSeconds: number,
    step: StoredStep,
    rider: ClaimRider,
  ): Promise<(ClaimTaken & { sequence: number }) | null> {
    // why: the claim, its step and the decision record were three statements of the claim's
    // transaction (with START and COMMIT, five); as one, they need no transaction at all.
    const rows = await directQuery<{ sequence: number; at: Date }>(
      this.m(),
      `WITH claimed AS (
         UPDATE run SET status = 'RUNNING', had_decision = true, checkpoint = $5, claimed_by = $6, lease_token = $7,
                lease_expires_at = now() + make_interval(secs => $8), waiting_since = NULL, hand_back = NULL,
                step_count = step_count + 1
          WHERE id = $1 AND status = $2 AND turn = $3 AND turn_digest = $4 AND ${deadlineGuard(claim)}
          RETURNING id, step_count),
       step AS (
         INSERT INTO run_step (run_id, sequence, kind, round, duration_ms, payload)
         SELECT $1, claimed.step_count, $9, $10, $11, $12 FROM claimed
         RETURNING sequence),
       rider AS (${rider.sql(13)})
       SELECT step.sequence, now() AS at FROM step`,
      [
        claim.runId,
        claim.from,
        claim.turn,
        claim.turnDigest,
        claim.checkpoint,
        lease.claimedBy,
        lease.token,
        leaseSeconds,
        step.kind,
        step.round,
        step.durationMs,
        JSON.stringify(step.payload),
        ...rider.params,
      ],
    );
    return rows[0] ?? null;
  }

  /**
   * The durable claim and the rider (the decision record), in one statement: WAITING_* ->
   * DECISION_RECORDED with the decision sealed into the checkpoint, guarded like the inline
   * claim; the workers LISTENing hear of it when it commits (`NOTIFY_WORKERS`). Null: another
   * decision got there first, and the rider wrote nothing.
   */
  async recordDecision(claim: DecisionClaimWrite, rider: ClaimRider): Promise<ClaimTaken | null> {
    const rows = await directQuery<{ at: Date }>(
      this.m(),
      `WITH claimed AS (
         UPDATE run SET status = 'DECISION_RECORDED', had_decision = true, checkpoint = $5, recorded_at = now(),
                hand_back = NULL, waiting_since = NULL
          WHERE id = $1 AND status = $2 AND turn = $3 AND turn_digest = $4 AND ${deadlineGuard(claim)}
          RETURNING id),
       rider AS (${rider.sql(6)})
       SELECT now() AS at, ${NOTIFY_WORKERS} FROM claimed`,
      [claim.runId, claim.from, claim.turn, claim.turnDigest, claim.checkpoint, ...rider.params],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks a run waiting for approval on this turn and digest, before its deadline, until the
   * transaction ends: the votes of a quorum queue here one after another, so each counts the
   * votes before it and exactly one completes the quorum. False: it no longer waits so.
   */
  async lockWaitingTurn(runId: string, turn: number, turnDigest: string): Promise<boolean> {
    const rows = returnedRows(
      await this.m().query(
        `SELECT id FROM run WHERE id = $1 AND status = 'WAITING_FOR_APPROVAL' AND turn = $2 AND turn_digest = $3
            AND (expires_at IS NULL OR expires_at > now()) FOR UPDATE`,
        [runId, turn, turnDigest],
      ),
    );
    return rows.length === 1;
  }

  /**
   * The approval wait whose deadline passed longest ago, locked until the transaction ends;
   * SKIP LOCKED, so every instance sweeping takes another run and a decision holding the row
   * is not waited for (it wins, or its claim fails on the deadline). Null: none is due.
   */
  async lockDueExpiry(): Promise<RunView | null> {
    const result: unknown = await this.m().query(
      `SELECT ${this.columns.sql()} FROM run r WHERE status = 'WAITING_FOR_APPROVAL' AND expires_at <= now()
        ORDER BY expires_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    return this.columns.rows(result)[0] ?? null;
  }

  /** Whether the deadline of a run's approval wait has passed, by PostgreSQL's clock. */
  async deadlinePassed(runId: string): Promise<boolean> {
    const rows = returnedRows<{ passed: boolean }>(
      await this.m().query(`SELECT expires_at <= now() AS passed FROM run WHERE id = $1`, [runId]),
    );
    return rows[0]?.passed === true;
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
        RETURNING ${this.columns.sql()}`,
      [claimedBy, leaseSeconds, limit, olderThanSeconds],
    );
    return this.claimsOf(result, claimedBy);
  }

  /**
   * QUEUED -> RUNNING for up to `limit` runs, oldest first (with `olderThanSeconds`, only those
   * queued at least that long ago), each under a fresh lease of `claimedBy`, with the rows of
   * `joins` read in the same statement: one statement, `FOR UPDATE SKIP LOCKED`, so concurrent
   * claimers never get the same run and never wait on each other. `started_at` keeps the first
   * start of a requeued run.
   */
  async claimQueued<C, O, P>(
    claimedBy: string,
    leaseSeconds: number,
    limit: number,
    joins: StartJoins<C, O, P>,
    olderThanSeconds = 0,
  ): Promise<Array<JoinedClaim<C, O, P>>> {
    if (limit <= 0) return [];
    // why: only the reconcile of an API-only instance asks for overdue runs; the worker's
    // statement stays as it is.
    const overdue = olderThanSeconds > 0 ? 'AND updated_at <= now() - make_interval(secs => $4)' : '';
    // why: MATERIALIZED evaluates the locking sub-select once. As a plain sub-select the planner
    // may put it on the inner side of a nested loop and rescan it; each rescan skips the rows
    // this statement already updated and locks the next ones, so LIMIT is not honoured (seen on
    // PostgreSQL 15 and PGlite). The outer `r.status = 'QUEUED'` re-checks the locked row.
    return this.claimedWith(
      `due AS MATERIALIZED (
         SELECT id FROM run WHERE status = 'QUEUED' ${overdue} ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE run r SET status = 'RUNNING', claimed_by = $1, lease_token = gen_random_uuid(),
                lease_expires_at = now() + make_interval(secs => $2), started_at = COALESCE(r.started_at, now())
           FROM due
          WHERE r.id = due.id AND r.status = 'QUEUED'
          RETURNING ${this.columns.sql()})`,
      olderThanSeconds > 0
        ? [claimedBy, leaseSeconds, limit, olderThanSeconds]
        : [claimedBy, leaseSeconds, limit],
      claimedBy,
      joins,
    );
  }

  /**
   * QUEUED -> RUNNING for this one run under a fresh lease of `claimedBy` (an instance carrying
   * the chat turn it just queued), with the rows of `joins`; null when a worker or another
   * instance claimed it first.
   */
  async claimQueuedById<C, O, P>(
    runId: string,
    claimedBy: string,
    leaseSeconds: number,
    joins: StartJoins<C, O, P>,
  ): Promise<JoinedClaim<C, O, P> | null> {
    const claimed = await this.claimedWith(
      `claimed AS (
         UPDATE run r SET status = 'RUNNING', claimed_by = $2, lease_token = gen_random_uuid(),
                lease_expires_at = now() + make_interval(secs => $3), started_at = COALESCE(r.started_at, now())
          WHERE r.id = $1 AND r.status = 'QUEUED'
          RETURNING ${this.columns.sql()})`,
      [runId, claimedBy, leaseSeconds],
      claimedBy,
      joins,
    );
    return claimed[0] ?? null;
  }

  /**
   * The claim `claimed` (a CTE returning whole runs) with the rows of `joins` read beside each
   * claimed run. why: a start needs the run's configuration, its owner and the page it is
   * about before its first step; read after the claim they were a round trip of their own.
   */
  private async claimedWith<C, O, P>(
    claim: string,
    params: unknown[],
    claimedBy: string,
    joins: StartJoins<C, O, P>,
  ): Promise<Array<JoinedClaim<C, O, P>>> {
    const configuration = joins.configuration.sql('jc', 'claimed.configuration_id');
    const owner = joins.owner.sql('jo', 'claimed.owner_id');
    const page = joins.page.sql('jp', 'claimed.subject_page_id');
    const result: unknown = await this.m().query(
      `WITH ${claim}
       SELECT ${this.claimed.sql()}, ${configuration.columns}, ${owner.columns}, ${page.columns}
         FROM claimed ${configuration.join} ${owner.join} ${page.join}`,
      params,
    );
    const raw = returnedRows<Record<string, unknown>>(result);
    return this.claimsOf(result, claimedBy).map((claim, i) => ({
      ...claim,
      joined: {
        configuration: joins.configuration.read(raw[i]!, 'jc'),
        owner: joins.owner.read(raw[i]!, 'jo'),
        page: joins.page.read(raw[i]!, 'jp'),
      },
    }));
  }

  /** Claimed rows (every column of the run) as runs with the lease each was claimed under; no read back. */
  private claimsOf(result: unknown, claimedBy: string): ClaimedRun[] {
    return this.columns.rows(result).map((run) => ({
      lease: { runId: run.id, token: run.leaseToken!, claimedBy },
      run,
    }));
  }
}
