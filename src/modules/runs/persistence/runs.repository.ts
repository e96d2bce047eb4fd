import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { directQuery } from '../../../platform/database/direct-query';
import { EntityColumns } from '../../../platform/database/entity-columns';
import { managerOf } from '../../../platform/database/transaction-runner';
import {
  affectsOne,
  CLEAR_LEASE,
  NOTIFY_WORKERS,
  type CarriedCompletion,
  type EffectWriteRider,
  type Lease,
  type NewRun,
  type StoredStep,
} from './run-rows';
import type { RunView } from '../core/run-view';
import { RunEntity } from './run.entity';

export type {
  CarriedCompletion,
  ClaimedRun,
  EffectWriteRider,
  Counters,
  DecisionClaimWrite,
  Lease,
  NewRun,
  SettledRow,
  SettleRider,
  SettleWrite,
  StoredStep,
  SuspendWrite,
} from './run-rows';

/**
 * A run's writes while it executes or settles, each ONE conditional UPDATE that counts only when
 * exactly one row changed (docs/run-lifecycle.md). Writes of an executing segment carry the
 * lease token (fencing): a process whose lease was taken over commits nothing. Claims are in
 * RunClaimsRepository, the settling statements in RunSettlingRepository, reads in
 * RunReadsRepository.
 */
/**
 * The lease a step leaves behind (`$3`: the lease in seconds): renewed once half of it is used
 * up, else as it was (see `stepsUnderLease`).
 */
const RENEWED_LEASE = `CASE
    WHEN COALESCE(lease_expires_at, '-infinity') < now() + make_interval(secs => $3::float8 / 2)
    THEN now() + make_interval(secs => $3::float8)
    ELSE lease_expires_at END`;

/** What a call's completion sets beside the steps (`$8`: the checkpoint after the write, if any). */
const COMPLETES_EFFECT = ', pending_effect = NULL, checkpoint = COALESCE($8, checkpoint)';

/**
 * The CTEs `r` (the run's row under the lease: step_count bumped, `alsoSet`, `alsoWhere`) and
 * `stored` (the steps, `$4`..`$7`, inserted after it, their sequences returned).
 */
function stepsCte(alsoSet: string, alsoWhere: string): string {
  return `r AS (
         UPDATE run SET step_count = step_count + cardinality($4::text[]), lease_expires_at = ${RENEWED_LEASE}${alsoSet}
          WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' ${alsoWhere}
          RETURNING step_count),
       stored AS (
         INSERT INTO run_step (run_id, sequence, kind, round, duration_ms, payload)
         SELECT $1, r.step_count - cardinality($4::text[]) + s.n, s.kind, s.round, s.duration_ms, s.payload
           FROM r, unnest($4::text[], $5::int[], $6::int[], $7::jsonb[])
                   WITH ORDINALITY AS s(kind, round, duration_ms, payload, n)
         RETURNING sequence)`;
}

/** `$1`..`$7` of `stepsCte`. */
function stepParams(lease: Lease, steps: readonly StoredStep[], leaseSeconds: number): unknown[] {
  return [
    lease.runId,
    lease.token,
    leaseSeconds,
    steps.map((s) => s.kind),
    steps.map((s) => s.round),
    steps.map((s) => s.durationMs),
    steps.map((s) => JSON.stringify(s.payload)),
  ];
}

@Injectable()
export class RunsRepository {
  /** A run's columns as an insert returns them (`run."id"`, ...). */
  private readonly inserts: EntityColumns<RunView>;
  /** The same columns read from the insert's CTE (`queued."id"`, ...). */
  private readonly queued: EntityColumns<RunView>;

  constructor(private readonly dataSource: DataSource) {
    this.inserts = new EntityColumns<RunView>(dataSource, RunEntity, 'run');
    this.queued = new EntityColumns<RunView>(dataSource, RunEntity, 'queued');
  }

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /**
   * Inserts a run that starts RUNNING under the caller's lease (synchronous start); the row as
   * stored. why returned: the start answers with the run, and reading it back was a round trip.
   */
  async insertRunning(run: NewRun, lease: Lease, leaseSeconds: number): Promise<RunView> {
    const rows: unknown = await this.m().query(
      `INSERT INTO run (id, configuration_id, owner_id, workspace_id, subject_page_id, subject_language_id,
         max_iterations, status, checkpoint, claimed_by, lease_token, lease_expires_at, started_at,
         predecessor_run_id, skill_invocation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'RUNNING', $8, $9, $10, now() + make_interval(secs => $11), now(), $12, $13)
       RETURNING ${this.inserts.sql()}`,
      [
        ...leadingValues(run),
        lease.claimedBy,
        lease.token,
        leaseSeconds,
        run.predecessorRunId ?? null,
        run.skillInvocation ? JSON.stringify(run.skillInvocation) : null,
      ],
    );
    return this.inserted(rows, run.id);
  }

  /**
   * Inserts a run that waits QUEUED for a worker, and tells the workers LISTENing
   * (`NOTIFY_WORKERS`); the row as stored.
   */
  async insertQueued(run: NewRun): Promise<RunView> {
    const rows: unknown = await this.m().query(
      `WITH queued AS (
         INSERT INTO run (id, configuration_id, owner_id, workspace_id, subject_page_id, subject_language_id,
           max_iterations, status, checkpoint, predecessor_run_id, skill_invocation, process_pin, dropped_process,
           chat_turn)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'QUEUED', $8, $9, $10, $11, $12, $13)
         RETURNING ${this.inserts.sql()})
       SELECT ${this.queued.sql()}, ${NOTIFY_WORKERS} FROM queued`,
      [
        ...leadingValues(run),
        run.predecessorRunId ?? null,
        run.skillInvocation ? JSON.stringify(run.skillInvocation) : null,
        run.processPin ? JSON.stringify(run.processPin) : null,
        run.droppedProcess ? JSON.stringify(run.droppedProcess) : null,
        run.chatTurn ?? false,
      ],
    );
    return this.inserted(rows, run.id);
  }

  private inserted(rows: unknown, id: string): RunView {
    const run = this.inserts.rows(rows)[0];
    if (!run) throw new Error(`run ${id}: the insert returned no row`);
    return run;
  }

  /** One step under the lease (`appendRunSteps`): its sequence, or null when the lease was lost. */
  async appendStep(lease: Lease, step: StoredStep, leaseSeconds: number): Promise<number | null> {
    return (await this.appendRunSteps(lease, [step], leaseSeconds))?.[0] ?? null;
  }

  /**
   * `appendRunSteps` for several runs at once, one step each (distinct runs), in one statement: the
   * sequence each run's step got, by run id; a run missing from the map lost its lease or is no
   * longer RUNNING, and nothing was stored for it. why: a worker's pickup records the decision
   * steps of every run it took, and a statement costs the worker far more than a row.
   */
  async appendSteps(
    entries: ReadonlyArray<{ readonly lease: Lease; readonly step: StoredStep }>,
    leaseSeconds: number,
  ): Promise<Map<string, number>> {
    if (new Set(entries.map((e) => e.lease.runId)).size !== entries.length) {
      throw new Error('appendSteps takes one step per run');
    }
    if (entries.length === 0) return new Map();
    const rows = await directQuery<{ run_id: string; sequence: number }>(
      this.m(),
      `WITH i AS (
         SELECT run_id, token, kind, round, duration_ms, payload
           FROM unnest($1::uuid[], $2::uuid[], $4::text[], $5::int[], $6::int[], $7::jsonb[])
                AS i(run_id, token, kind, round, duration_ms, payload)),
       r AS (
         UPDATE run SET step_count = step_count + 1, lease_expires_at = ${RENEWED_LEASE}
           FROM i
          WHERE run.id = i.run_id AND run.lease_token = i.token AND run.status = 'RUNNING'
          RETURNING run.id, run.step_count)
       INSERT INTO run_step (run_id, sequence, kind, round, duration_ms, payload)
       SELECT r.id, r.step_count, i.kind, i.round, i.duration_ms, i.payload FROM r JOIN i ON i.run_id = r.id
       RETURNING run_id, sequence`,
      [
        entries.map((e) => e.lease.runId),
        entries.map((e) => e.lease.token),
        leaseSeconds,
        entries.map((e) => e.step.kind),
        entries.map((e) => e.step.round),
        entries.map((e) => e.step.durationMs),
        entries.map((e) => JSON.stringify(e.step.payload)),
      ],
    );
    return new Map(rows.map((r) => [r.run_id, r.sequence]));
  }

  /**
   * Records steps of one run (in order) under its lease: bumps `step_count` (their sequences
   * follow it), renews the lease once half of it is used up, and inserts the steps, in one
   * statement. The steps' sequences, ascending; null when the lease was lost or the run is no
   * longer RUNNING (cancelled, reaped): nothing was stored, and the caller must stop at once.
   */
  async appendRunSteps(
    lease: Lease,
    steps: readonly StoredStep[],
    leaseSeconds: number,
  ): Promise<number[] | null> {
    if (steps.length === 0) return [];
    return this.stepsUnderLease(lease, steps, leaseSeconds, '', []);
  }

  /**
   * Records a write call's steps (in order) and clears the run's pending effect, storing the
   * checkpoint after the write where one is given, in one statement under the lease (as
   * `appendRunSteps`). The steps' sequences, ascending; null when the lease was lost or the run is
   * no longer RUNNING: nothing was stored.
   */
  async completeEffect(
    lease: Lease,
    steps: readonly StoredStep[],
    leaseSeconds: number,
    checkpoint?: string,
  ): Promise<number[] | null> {
    if (steps.length === 0) throw new Error("completeEffect needs the call's steps");
    return this.stepsUnderLease(lease, steps, leaseSeconds, COMPLETES_EFFECT, [checkpoint ?? null]);
  }

  /**
   * `completeEffect` with the call's write riding in the same statement: the run is locked under
   * its lease first, the write happens only then, and the steps, the cleared effect and the
   * checkpoint only where it wrote. 'lease-lost': nothing written or stored; 'write-lost': the
   * lease held but the write did not happen (its guard no longer held), nothing stored.
   */
  async completeEffectWith(
    lease: Lease,
    steps: readonly StoredStep[],
    leaseSeconds: number,
    checkpoint: string | undefined,
    write: EffectWriteRider,
  ): Promise<CarriedCompletion> {
    if (steps.length === 0) throw new Error("completeEffectWith needs the call's steps");
    const rows = await directQuery<{ leased: number; written: number; sequences: number[] }>(
      this.m(),
      // why: FOR NO KEY UPDATE holds the lease for the whole statement (the reaper's SKIP LOCKED
      // passes over the run, and finds the lease renewed afterwards) without blocking the step
      // rows' key-share check of run.
      `WITH leased AS (
         SELECT id FROM run WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' FOR NO KEY UPDATE),
       written AS (${write.sql(9, 'leased')}),
       ${stepsCte(COMPLETES_EFFECT, 'AND EXISTS (SELECT 1 FROM written)')}
       SELECT (SELECT count(*) FROM leased)::int AS leased, (SELECT count(*) FROM written)::int AS written,
              ARRAY(SELECT sequence FROM stored ORDER BY sequence) AS sequences`,
      [...stepParams(lease, steps, leaseSeconds), checkpoint ?? null, ...write.params],
    );
    const row = rows[0]!;
    if (row.leased === 0) return 'lease-lost';
    if (row.written === 0) return 'write-lost';
    return row.sequences;
  }

  /**
   * Steps appended in order under the lease, with `alsoSet` (from `$8` on) in the same UPDATE.
   * why: one statement keeps the fencing check and the insert atomic without an explicit
   * transaction. It leaves lease_expires_at as it is while more than half of the lease is left
   * (the executor's heartbeat renews it every third of the lease anyway): the run row then
   * changes only in step_count, and PostgreSQL logs just the changed bytes of that HOT update
   * instead of everything between step_count and lease_expires_at (the checkpoint).
   */
  private async stepsUnderLease(
    lease: Lease,
    steps: readonly StoredStep[],
    leaseSeconds: number,
    alsoSet: string,
    alsoParams: unknown[],
  ): Promise<number[] | null> {
    const rows = await directQuery<{ sequence: number }>(
      this.m(),
      `WITH ${stepsCte(alsoSet, '')} SELECT sequence FROM stored`,
      [...stepParams(lease, steps, leaseSeconds), ...alsoParams],
    );
    return rows.length === 0 ? null : rows.map((r) => r.sequence).sort((a, b) => a - b);
  }

  /** Replaces the checkpoint of a run this process executes (under its lease). */
  async storeCheckpoint(lease: Lease, checkpoint: string): Promise<boolean> {
    return affectsOne(
      this.m(),
      `UPDATE run SET checkpoint = $3 WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
      [lease.runId, lease.token, checkpoint],
    );
  }

  /** Extends the lease while a long provider call runs; false when it was lost. */
  async renewLease(lease: Lease, leaseSeconds: number): Promise<boolean> {
    return affectsOne(
      this.m(),
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
    return affectsOne(
      this.m(),
      `UPDATE run SET pending_effect = $3, checkpoint = COALESCE($4, checkpoint)
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
      [lease.runId, lease.token, effect ? JSON.stringify(effect) : null, checkpoint ?? null],
    );
  }

  /**
   * Marks the pending effect as applied, inside the transaction that applies it (the page
   * write): fenced by the lease, so a process that lost its lease writes nothing, and the
   * reaper can tell an effect that committed from one that never did. `effect` is recorded
   * with the mark where it was not announced before (a transactional effect: it exists only
   * if this transaction commits); without it, the announced effect is marked.
   */
  async markEffectApplied(lease: Lease, effect: Record<string, unknown> | null = null): Promise<boolean> {
    return affectsOne(
      this.m(),
      `UPDATE run SET pending_effect = COALESCE($3::jsonb, pending_effect) || '{"applied": true}'::jsonb
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
          AND ($3::jsonb IS NOT NULL OR pending_effect IS NOT NULL)`,
      [lease.runId, lease.token, effect ? JSON.stringify(effect) : null],
    );
  }

  /** Gives a run back to the queue at once (a process stopping), where no write is in flight. */
  async requeue(lease: Lease): Promise<boolean> {
    return affectsOne(
      this.m(),
      `UPDATE run SET status = 'QUEUED', ${CLEAR_LEASE}
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' AND pending_effect IS NULL`,
      [lease.runId, lease.token],
    );
  }
}

/** The values of the columns both inserts name first, in the order they name them ($1-$8). */
function leadingValues(run: NewRun): unknown[] {
  return [
    run.id,
    run.configurationId,
    run.ownerId,
    run.workspaceId,
    run.subjectPageId,
    run.subjectLanguageId,
    run.maxIterations,
    run.checkpoint,
  ];
}
