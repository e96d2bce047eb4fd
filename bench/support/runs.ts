import type { Client } from 'pg';
import { START_RUN, type GraphQLClient } from './graphql';
import { sleep } from './stats';

/** A run row as the bench checks it; times in epoch milliseconds with microseconds. */
export interface RunRow {
  readonly id: string;
  readonly status: string;
  readonly terminationReason: string | null;
  readonly truncated: boolean;
  readonly iterations: number;
  readonly stepCount: number;
  readonly startedAtMs: number | null;
  readonly finishedAtMs: number | null;
}

/** One recorded step: its sequence, the transaction that wrote it, when. */
export interface StepRow {
  readonly sequence: number;
  readonly kind: string;
  readonly xid: number;
  readonly atMs: number;
}

const MOVING = new Set(['QUEUED', 'RUNNING', 'DECISION_RECORDED']);

/** Starts a run through the public API (GraphQL `startRun` over HTTP); returns its id. */
export async function startRun(gql: GraphQLClient, input: Record<string, unknown>): Promise<string> {
  const data = await gql.must<{ startRun: { id: string } }>(START_RUN, { input });
  return data.startRun.id;
}

export async function readRun(client: Client, runId: string): Promise<RunRow | null> {
  const r = await client.query<{
    id: string;
    status: string;
    termination_reason: string | null;
    truncated: boolean;
    iterations: number;
    step_count: number;
    started_ms: number | null;
    finished_ms: number | null;
  }>(
    `SELECT id, status, termination_reason, truncated, iterations, step_count,
            (extract(epoch FROM started_at) * 1000)::float8 AS started_ms,
            (extract(epoch FROM finished_at) * 1000)::float8 AS finished_ms
       FROM run WHERE id = $1`,
    [runId],
  );
  const row = r.rows[0];
  if (!row) return null;
  return {
    id: row.id,
    status: row.status,
    terminationReason: row.termination_reason,
    truncated: row.truncated,
    iterations: row.iterations,
    stepCount: row.step_count,
    startedAtMs: row.started_ms,
    finishedAtMs: row.finished_ms,
  };
}

/**
 * Polls the run row until the run rests (not QUEUED, RUNNING or DECISION_RECORDED). The poll
 * costs one indexed read per `pollMs`; it writes nothing, so it adds no WAL.
 */
export async function waitForRest(
  client: Client,
  runId: string,
  timeoutMs = 120_000,
  pollMs = 5,
): Promise<RunRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await readRun(client, runId);
    if (!run) throw new Error(`run ${runId} not found`);
    if (!MOVING.has(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/** The step log of a run in sequence order, with each step's writing transaction (xmin). */
export async function stepLog(client: Client, runId: string): Promise<StepRow[]> {
  const r = await client.query<{ sequence: number; kind: string; xid: string; at_ms: number }>(
    `SELECT sequence, kind, xmin::text AS xid, (extract(epoch FROM created_at) * 1000)::float8 AS at_ms
       FROM run_step WHERE run_id = $1 ORDER BY sequence`,
    [runId],
  );
  return r.rows.map((s) => ({ sequence: s.sequence, kind: s.kind, xid: Number(s.xid), atMs: s.at_ms }));
}

/**
 * Problems with a run's step log: `step_count` must equal the number of steps, and the
 * sequences must be exactly 1..n (no gap, no duplicate).
 */
export function stepLogProblems(run: RunRow, steps: readonly StepRow[]): string[] {
  const problems: string[] = [];
  if (run.stepCount !== steps.length)
    problems.push(`step_count ${run.stepCount} but ${steps.length} run_step rows`);
  const gap = steps.findIndex((s, i) => s.sequence !== i + 1);
  if (gap >= 0)
    problems.push(`sequence ${steps[gap]!.sequence} at position ${gap + 1} (expected ${gap + 1})`);
  return problems;
}
