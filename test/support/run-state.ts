import type { DataSource } from 'typeorm';

/** What the fault tests read of a run row (leases, requeues, progress). */
export interface RunState {
  status: string;
  claimed_by: string | null;
  lease_token: string | null;
  termination_reason: string | null;
  requeue_count: number;
  pending_effect: unknown;
  step_count: number;
  turn: number;
}

export const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
/** A scripted round that reads the subject page. */
export const READ = { toolCalls: [{ name: 'pages_read', arguments: {} }] };

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The first row of a query. */
export async function one<T>(ds: DataSource, sql: string, params: unknown[] = []): Promise<T> {
  const rows = await ds.query<T[]>(sql, params);
  return rows[0]!;
}

export const runState = (ds: DataSource, id: string): Promise<RunState> =>
  one<RunState>(
    ds,
    `SELECT status, claimed_by, lease_token, termination_reason, requeue_count, pending_effect, step_count, turn
       FROM run WHERE id = $1`,
    [id],
  );
