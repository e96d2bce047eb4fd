import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { StateVault } from '../../src/modules/runs';
import { approve } from './decisions';
import type { GraphQLClient } from './graphql';

/** Rows per INSERT when cloning (keeps each statement's parameters small). */
const CLONE_BATCH = 500;

async function columnsOf(client: Client, table: string): Promise<string[]> {
  const r = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return r.rows.map((c) => c.column_name);
}

/**
 * Copies of a run that waits for approval (one made through the API: `startRun`, then its
 * first pause), one per workspace, so that the bench can have hundreds of waiting runs in a
 * second instead of starting each through the agent loop. A copy is the template's row and
 * steps under a new id, with its own workspace (its write lands in its own `page_text` row, so
 * no write changes another copy's preview) and the checkpoint re-sealed for the new id (the
 * seal is bound to the run id). The turn digest is the template's: it covers the pending calls
 * and their previews, not the run id. Decisions on the copies go through the API as usual.
 * Columns are read from the catalog, so a column added later is copied as is.
 */
export async function cloneWaitingRuns(
  client: Client,
  vault: StateVault,
  templateId: string,
  workspaces: readonly number[],
): Promise<string[]> {
  const t = await client.query<{ status: string; checkpoint: string }>(
    'SELECT status, checkpoint FROM run WHERE id = $1',
    [templateId],
  );
  const template = t.rows[0];
  if (!template || template.status !== 'WAITING_FOR_APPROVAL') {
    throw new Error(`run ${templateId} is not waiting for approval (${template?.status ?? 'missing'})`);
  }
  const checkpoint = vault.open(templateId, template.checkpoint);
  const override: Record<string, string> = {
    id: 'c.id',
    workspace_id: 'c.ws',
    checkpoint: 'c.cp',
    created_at: 'now()',
    waiting_since: 'now()',
  };
  const runCols = await columnsOf(client, 'run');
  const stepCols = await columnsOf(client, 'run_step');
  const ids: string[] = [];
  for (let i = 0; i < workspaces.length; i += CLONE_BATCH) {
    const ws = workspaces.slice(i, i + CLONE_BATCH);
    const batch = ws.map(() => randomUUID());
    const sealed = batch.map((id) => vault.seal(id, checkpoint));
    await client.query('BEGIN');
    try {
      await client.query(
        `INSERT INTO run (${runCols.join(', ')})
         SELECT ${runCols.map((c) => override[c] ?? `t.${c}`).join(', ')}
           FROM run t, unnest($1::uuid[], $2::int[], $3::text[]) AS c(id, ws, cp)
          WHERE t.id = $4`,
        [batch, ws, sealed, templateId],
      );
      await client.query(
        `INSERT INTO run_step (${stepCols.join(', ')})
         SELECT ${stepCols.map((c) => (c === 'run_id' ? 'c.id' : `s.${c}`)).join(', ')}
           FROM run_step s, unnest($1::uuid[]) AS c(id)
          WHERE s.run_id = $2`,
        [batch, templateId],
      );
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK');
      throw e;
    }
    ids.push(...batch);
  }
  return ids;
}

/**
 * Logs every row written into `page_text` with its transaction (a first write into a workspace
 * is two statements in one transaction), so the bench counts writes per workspace exactly.
 */
export async function installPageWriteLog(client: Client): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS bench_page_writes (
      workspace_id int NOT NULL, xid bigint NOT NULL DEFAULT txid_current(),
      at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await client.query(`CREATE OR REPLACE FUNCTION bench_log_page_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO bench_page_writes (workspace_id) VALUES (NEW.workspace_id); RETURN NEW; END $$`);
  await client.query('DROP TRIGGER IF EXISTS bench_log_page_write ON page_text');
  await client.query(`CREATE TRIGGER bench_log_page_write AFTER INSERT OR UPDATE ON page_text
      FOR EACH ROW EXECUTE FUNCTION bench_log_page_write()`);
}

/** What a set of runs shows after their decisions were carried out. */
export interface ContinuationAudit {
  readonly runs: number;
  readonly completed: number;
  /** Runs with more than one APPROVAL step, TOOL_WRITE step or page write: must be 0. */
  readonly duplicates: string[];
  /** Runs whose acknowledged decision left no trace (no APPROVAL step, no write): must be 0. */
  readonly lost: string[];
  /** step_count different from the rows, or sequences not 1..n. */
  readonly stepLogProblems: string[];
  readonly byStatus: Record<string, number>;
}

/** Audits runs that each had one approval of one write (one decision each). */
export async function auditContinuations(
  client: Client,
  runIds: readonly string[],
): Promise<ContinuationAudit> {
  const r = await client.query<{
    id: string;
    status: string;
    step_count: number;
    steps: number;
    max_seq: number | null;
    distinct_seq: number;
    approvals: number;
    writes: number;
    page_writes: number;
  }>(
    `SELECT r.id, r.status, r.step_count,
            (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id) AS steps,
            (SELECT max(sequence) FROM run_step s WHERE s.run_id = r.id) AS max_seq,
            (SELECT count(DISTINCT sequence)::int FROM run_step s WHERE s.run_id = r.id) AS distinct_seq,
            (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'APPROVAL') AS approvals,
            (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'TOOL_WRITE') AS writes,
            (SELECT count(DISTINCT w.xid)::int FROM bench_page_writes w WHERE w.workspace_id = r.workspace_id)
              AS page_writes
       FROM run r WHERE r.id = ANY($1::uuid[])`,
    [runIds],
  );
  const byStatus: Record<string, number> = {};
  const duplicates: string[] = [];
  const lost: string[] = [];
  const stepLogProblems: string[] = [];
  for (const row of r.rows) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    if (row.approvals > 1 || row.writes > 1 || row.page_writes > 1) {
      duplicates.push(
        `${row.id}: APPROVAL ${row.approvals}, TOOL_WRITE ${row.writes}, writes ${row.page_writes}`,
      );
    }
    if (row.writes === 0 && row.page_writes === 0 && row.status !== 'FAILED') {
      lost.push(`${row.id}: ${row.status}, APPROVAL ${row.approvals}, no write`);
    }
    if (row.steps !== row.step_count || row.distinct_seq !== row.steps || (row.max_seq ?? 0) !== row.steps) {
      stepLogProblems.push(`${row.id}: step_count ${row.step_count}, ${row.steps} rows, max ${row.max_seq}`);
    }
  }
  return {
    runs: r.rows.length,
    completed: byStatus.COMPLETED ?? 0,
    duplicates,
    lost,
    stepLogProblems,
    byStatus,
  };
}

/** What the deciders got back for a batch of decisions sent over HTTP. */
export interface Acknowledged {
  /** Runs whose decision got a receipt on the expected path. */
  readonly acknowledged: string[];
  /** Runs whose decision was refused or took another path (`id: codes / path`). */
  readonly refused: string[];
}

/**
 * approveRun over HTTP for each run (`width` requests in flight), as whoever `gql` is, on
 * `path`; the turn digest is the run's `turn_digest` (the one the API shows).
 */
export async function approveAll(
  gql: GraphQLClient,
  client: Client,
  runIds: readonly string[],
  path: 'INLINE' | 'DURABLE',
  width = 10,
): Promise<Acknowledged> {
  const r = await client.query<{ id: string; turn_digest: string; step_count: number; turn: number }>(
    'SELECT id, turn_digest, step_count, turn FROM run WHERE id = ANY($1::uuid[])',
    [runIds],
  );
  const waiting = r.rows.map((row) => ({
    runId: row.id,
    digest: row.turn_digest,
    stepCount: row.step_count,
    turn: row.turn,
  }));
  const acknowledged: string[] = [];
  const refused: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < waiting.length) {
      const run = waiting[next++]!;
      const answer = await approve(gql, run, path);
      if (answer.receipt?.path === path) acknowledged.push(run.runId);
      else refused.push(`${run.runId}: ${answer.codes.join(',') || answer.receipt?.path}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, waiting.length) }, lane));
  return { acknowledged, refused };
}
