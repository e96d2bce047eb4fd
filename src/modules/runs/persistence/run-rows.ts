import type { EntityManager } from 'typeorm';
import { affectedRows, returnedRows } from '../../../platform/database/query-results';
import type { TerminationReason } from '../core/run-status';
import type { RunView } from '../core/run-view';

// The shapes the runs repositories take and give, and the SQL result helpers they share.

/** The PostgreSQL channel workers LISTEN on for new work (a queued run, a recorded decision). */
export const WORK_CHANNEL = 'countersign_work';

/**
 * Tells the workers LISTENing on PostgreSQL of the work a statement makes, from inside that
 * statement (a select-list item over the rows it wrote). why: a NOTIFY is delivered when its
 * transaction commits and dropped when it rolls back, so a worker hears of exactly the work that
 * committed, and the write needs no statement of its own to announce it.
 */
export const NOTIFY_WORKERS = `pg_notify('${WORK_CHANNEL}', '')`;

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
  /** A chat turn (see `RunView.chatTurn`). */
  readonly chatTurn?: boolean;
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
  /** True for the expiry's claim (the deadline must have passed); a decision needs it ahead. */
  readonly expiry?: boolean;
}

/**
 * Another module's write that rides in a decision's claim statement (the approvals module's
 * decision record), so the claim and the write stand or fall together in one statement, with no
 * transaction of their own: a data-modifying statement over the CTE `claimed` (one row, the run's
 * `id`, when the claim won; none when it lost), its parameters numbered from `$<first>`.
 */
export interface ClaimRider {
  sql(first: number): string;
  readonly params: readonly unknown[];
}

/**
 * Another module's write that rides in the statement completing the call that makes it (the
 * content module's page write, `GuardedTextWrite`): a data-modifying statement that writes only
 * while the CTE `gate` has a row (the run, locked under its lease) and returns one row when it
 * wrote, its parameters numbered from `$<first>`.
 */
export interface EffectWriteRider {
  sql(first: number, gate: string): string;
  readonly params: readonly unknown[];
}

/** How a completion carrying its write ended: its steps' sequences, or what stopped it. */
export type CarriedCompletion = readonly number[] | 'lease-lost' | 'write-lost';

/** A claim the decision won: when, by PostgreSQL's clock (the rider's `now()`). */
export interface ClaimTaken {
  readonly at: Date;
}

/** The deadline guard of a decision's claim, and of the expiry's (its mirror image). */
export function deadlineGuard(claim: { readonly expiry?: boolean }): string {
  return claim.expiry ? 'expires_at <= now()' : '(expires_at IS NULL OR expires_at > now())';
}

export interface StoredStep {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly payload: Record<string, unknown>;
}

export const CLEAR_LEASE = 'claimed_by = NULL, lease_token = NULL, lease_expires_at = NULL';
/**
 * What a settling UPDATE hands back, so nobody reads the row again to announce it, and what a
 * `SettleRider` reads of it (`id`, `status`, `had_decision`, `hand_back_code`: the code of a
 * hand-back the statement makes, else NULL).
 */
// why: a pause's trace event carries the turn's deadline and quorum; the configuration's quorum
// is read in the same statement, and only for a run that starts waiting for an approval.
/** The columns of `settledReturning`, as the settling statement hands them back. */
const SETTLED_COLUMNS =
  'id, status, step_count, turn, had_decision, chat_turn, expires_at, hand_back_code, required_approvals';

export function settledReturning(handBackCode = 'NULL::text'): string {
  return `RETURNING id, status, step_count, turn, had_decision, chat_turn, expires_at, ${handBackCode} AS hand_back_code,
  CASE WHEN status = 'WAITING_FOR_APPROVAL'
    THEN (SELECT c.required_approvals FROM configuration c WHERE c.id = configuration_id) END AS required_approvals`;
}

/**
 * Another module's write that rides in every statement that settles runs, so it commits with
 * the settle without a statement (and a transaction) of its own: a data-modifying statement over
 * the CTE `settled`, one row per run the statement settled (see `settledReturning`; a reaper's
 * requeue is in it too, with status QUEUED). Registered through `RunSettlements`.
 */
export interface SettleRider {
  readonly sql: string;
}

/**
 * The whole settling statement: `update` (an UPDATE of run, RETURNING `settledReturning()`)
 * as the CTE `settled`, then `more` (CTEs over `settled`, e.g. the steps stored with it), then
 * the rider, and the settled rows as the result. why: a data-modifying CTE must sit at the top
 * level, so the parts are put side by side here rather than nested.
 */
export function settlingStatement(
  update: string,
  rider: SettleRider | null,
  more: readonly string[] = [],
): string {
  const ctes = [`settled AS (${update})`, ...more, ...(rider ? [`rider AS (${rider.sql})`] : [])];
  // why: named columns, not `*`: a whole-row projection is sent unnamed (statement-cache.ts), so
  // it was parsed and planned at every settle (PostgreSQL's log: bind 0.6-0.9 ms, execute 0.05).
  return `WITH ${ctes.join(',\n')}\nSELECT ${SETTLED_COLUMNS} FROM settled`;
}

/** A run as a settling write left it. */
export interface SettledRow {
  readonly stepCount: number;
  readonly turn: number;
  /** Whether a decision ever continued the run (only then can one be waiting for its outcome). */
  readonly hadDecision: boolean;
  /** Whether it was started as a chat turn (only then can a conversation be waiting on it). */
  readonly chatTurn: boolean;
  /** A run that starts waiting for an approval: its deadline (null: none) and its quorum. */
  readonly expiresAt?: Date | null;
  readonly approvalsRequired?: number;
}

/** A run a worker claimed, with the lease it now executes it under. */
export interface ClaimedRun {
  readonly lease: Lease;
  /** The row as the claim left it. */
  readonly run: RunView;
}

/** Runs a statement and reports whether exactly one row changed. */
export async function affectsOne(manager: EntityManager, sql: string, params: unknown[]): Promise<boolean> {
  return affectedRows(await manager.query(sql, params)) === 1;
}

/**
 * A settling UPDATE (RETURNING `settledReturning()`) with the rider: what it left, or null when
 * it changed no row.
 */
export async function settledRow(
  manager: EntityManager,
  update: string,
  params: unknown[],
  rider: SettleRider | null,
  more: readonly string[] = [],
): Promise<SettledRow | null> {
  const rows = returnedRows<{
    step_count: number;
    turn: number;
    had_decision: boolean;
    chat_turn: boolean;
    expires_at: Date | null;
    required_approvals: number | null;
  }>(await manager.query(settlingStatement(update, rider, more), params));
  const row = rows.length === 1 ? rows[0]! : null;
  return (
    row && {
      stepCount: row.step_count,
      turn: row.turn,
      hadDecision: row.had_decision,
      chatTurn: row.chat_turn,
      expiresAt: row.expires_at,
      approvalsRequired: row.required_approvals ?? 1,
    }
  );
}

/**
 * A settling UPDATE under the lease (`$1` the run, `$2` its token; `set` starts at `$3`) that
 * also appends the segment's last kept steps after the stored ones, in the same statement.
 * why: a segment's last round would otherwise store its steps in a statement of its own inside
 * the settle's transaction; here the steps and the settle stand or fall together, fenced by the
 * same lease check (steps of a fenced-out process are never stored).
 */
export async function settleUnderLease(
  manager: EntityManager,
  lease: Lease,
  set: string,
  params: unknown[],
  steps: readonly StoredStep[],
  rider: SettleRider | null,
): Promise<SettledRow | null> {
  const k = params.length + 3;
  const kinds = `$${k}::text[]`;
  return settledRow(
    manager,
    `UPDATE run SET ${set}, step_count = step_count + cardinality(${kinds}), ${CLEAR_LEASE}
      WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'
      ${settledReturning()}`,
    [
      lease.runId,
      lease.token,
      ...params,
      steps.map((s) => s.kind),
      steps.map((s) => s.round),
      steps.map((s) => s.durationMs),
      steps.map((s) => JSON.stringify(s.payload)),
    ],
    rider,
    [
      `steps AS (
       INSERT INTO run_step (run_id, sequence, kind, round, duration_ms, payload)
       SELECT $1, r.step_count - cardinality(${kinds}) + s.n, s.kind, s.round, s.duration_ms, s.payload
         FROM settled r, unnest(${kinds}, $${k + 1}::int[], $${k + 2}::int[], $${k + 3}::jsonb[])
                 WITH ORDINALITY AS s(kind, round, duration_ms, payload, n))`,
    ],
  );
}
