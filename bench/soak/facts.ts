import type { Client } from 'pg';

/** A run as the checker sees it after quiescence. */
export interface RunFact {
  readonly id: string;
  readonly status: string;
  readonly turn: number;
  readonly stepCount: number;
  readonly hasLease: boolean;
  readonly leaseLive: boolean;
  readonly claimedBy: string | null;
  readonly handBackCode: string | null;
  readonly terminationReason: string | null;
  readonly workspaceId: number;
  readonly ownerId: number;
  readonly configuration: string;
  readonly fourEyes: boolean;
}

/** A run's step log, summarised. */
export interface StepLogFact {
  readonly runId: string;
  readonly rows: number;
  readonly maxSequence: number;
  readonly distinctSequences: number;
  readonly toolWrites: number;
}

/** One APPROVAL / INPUT step: when it was recorded (epoch ms, the database's clock). */
export interface DecisionStepTime {
  readonly runId: string;
  readonly turn: number;
  readonly configuration: string;
  readonly atMs: number;
}

/** APPROVAL / INPUT steps of one (run, turn) (the turn is in the step's payload). */
export interface DecisionStepFact {
  readonly runId: string;
  readonly turn: number;
  readonly count: number;
  /** APPROVAL steps with `approved: true` among them. */
  readonly approvals: number;
}

export interface DecisionFact {
  readonly id: string;
  readonly runId: string;
  readonly turn: number;
  readonly kind: string;
  /** Null for EXPIRE (nobody decided before the deadline). */
  readonly decidedBy: number | null;
  readonly turnDigest: string;
  readonly path: string;
  readonly idempotencyKey: string | null;
  readonly handedBackCode: string | null;
  readonly outcome: string | null;
}

/** Page text writes of one workspace (one per writing transaction, from a trigger). */
export interface WorkspaceWritesFact {
  readonly workspaceId: number;
  readonly writes: number;
}

/** One approval of a quorum turn, with the quorum its configuration asks for. */
export interface VoteFact {
  readonly id: string;
  readonly runId: string;
  readonly turn: number;
  readonly required: number;
}

export interface Facts {
  readonly runs: readonly RunFact[];
  readonly stepLogs: readonly StepLogFact[];
  readonly decisionSteps: readonly DecisionStepFact[];
  readonly decisionStepTimes: readonly DecisionStepTime[];
  readonly decisions: readonly DecisionFact[];
  readonly pageWrites: readonly WorkspaceWritesFact[];
  readonly votes: readonly VoteFact[];
  /** Demo user id by username. */
  readonly users: Readonly<Record<string, number>>;
}

/**
 * Logs every `page_text` row written with its transaction, so writes are counted exactly per
 * workspace (a first write into a workspace is two statements in one transaction).
 */
export async function installPageWriteLog(client: Client): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS soak_page_writes (
      workspace_id int NOT NULL, xid bigint NOT NULL DEFAULT txid_current(),
      at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await client.query(`CREATE OR REPLACE FUNCTION soak_log_page_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO soak_page_writes (workspace_id) VALUES (NEW.workspace_id); RETURN NEW; END $$`);
  await client.query(`CREATE TRIGGER soak_log_page_write AFTER INSERT OR UPDATE ON page_text
      FOR EACH ROW EXECUTE FUNCTION soak_log_page_write()`);
}

async function runs(client: Client): Promise<RunFact[]> {
  const r = await client.query<RunFact>(
    `SELECT r.id, r.status, r.turn, r.step_count AS "stepCount", r.lease_token IS NOT NULL AS "hasLease",
            coalesce(r.lease_expires_at > now(), false) AS "leaseLive", r.claimed_by AS "claimedBy",
            r.hand_back->>'code' AS "handBackCode", r.termination_reason AS "terminationReason",
            r.workspace_id AS "workspaceId", r.owner_id AS "ownerId", c.identifier AS configuration,
            c.require_second_approver AS "fourEyes"
       FROM run r JOIN configuration c ON c.id = r.configuration_id`,
  );
  return r.rows;
}

/** Everything the checker reads from the database, in one snapshot (one transaction). */
export async function readFacts(client: Client): Promise<Facts> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const stepLogs = await client.query<StepLogFact>(
      `SELECT run_id AS "runId", count(*)::int AS rows, max(sequence)::int AS "maxSequence",
              count(DISTINCT sequence)::int AS "distinctSequences",
              (count(*) FILTER (WHERE kind = 'TOOL_WRITE'))::int AS "toolWrites"
         FROM run_step GROUP BY run_id`,
    );
    const decisionSteps = await client.query<DecisionStepFact>(
      `SELECT run_id AS "runId", (payload->>'turn')::int AS turn, count(*)::int AS count,
              (count(*) FILTER (WHERE kind = 'APPROVAL' AND payload->>'approved' = 'true'))::int AS approvals
         FROM run_step WHERE kind IN ('APPROVAL', 'INPUT') GROUP BY 1, 2`,
    );
    const times = await client.query<DecisionStepTime>(
      `SELECT s.run_id AS "runId", (s.payload->>'turn')::int AS turn, c.identifier AS configuration,
              (extract(epoch FROM s.created_at) * 1000)::float8 AS "atMs"
         FROM run_step s JOIN run r ON r.id = s.run_id JOIN configuration c ON c.id = r.configuration_id
        WHERE s.kind IN ('APPROVAL', 'INPUT')`,
    );
    const decisions = await client.query<DecisionFact>(
      `SELECT id, run_id AS "runId", turn, kind, decided_by AS "decidedBy", turn_digest AS "turnDigest", path,
              idempotency_key AS "idempotencyKey", handed_back_code AS "handedBackCode", outcome
         FROM decision`,
    );
    const votes = await client.query<VoteFact>(
      `SELECT v.id, v.run_id AS "runId", v.turn, c.required_approvals AS required
         FROM approval_vote v JOIN run r ON r.id = v.run_id JOIN configuration c ON c.id = r.configuration_id`,
    );
    const pageWrites = await client.query<WorkspaceWritesFact>(
      `SELECT workspace_id AS "workspaceId", count(DISTINCT xid)::int AS writes FROM soak_page_writes GROUP BY 1`,
    );
    const users = await client.query<{ username: string; id: number }>('SELECT username, id FROM app_user');
    return {
      runs: await runs(client),
      stepLogs: stepLogs.rows,
      decisionSteps: decisionSteps.rows,
      decisionStepTimes: times.rows,
      decisions: decisions.rows,
      pageWrites: pageWrites.rows,
      votes: votes.rows,
      users: Object.fromEntries(users.rows.map((u) => [u.username, u.id])),
    };
  } finally {
    await client.query('COMMIT');
  }
}

/** Runs RUNNING without a lease, or with a lease expired longer than `graceSeconds` ago. */
export async function leaseProblems(
  client: Client,
  graceSeconds: number,
): Promise<Array<{ id: string; claimedBy: string | null; noLease: boolean; expiredFor: number | null }>> {
  const r = await client.query<{
    id: string;
    claimedBy: string | null;
    noLease: boolean;
    expiredFor: number | null;
  }>(
    `SELECT id, claimed_by AS "claimedBy", lease_token IS NULL OR lease_expires_at IS NULL AS "noLease",
            extract(epoch FROM now() - lease_expires_at)::float8 AS "expiredFor"
       FROM run WHERE status = 'RUNNING'
        AND (lease_token IS NULL OR lease_expires_at IS NULL
             OR lease_expires_at < now() - make_interval(secs => $1))`,
    [graceSeconds],
  );
  return r.rows;
}

/** How many runs are still moving (QUEUED, RUNNING, DECISION_RECORDED). */
export async function movingRuns(client: Client): Promise<number> {
  const r = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM run WHERE status IN ('QUEUED', 'RUNNING', 'DECISION_RECORDED')`,
  );
  return r.rows[0]!.n;
}

/** Switches a configuration off or on; the database's time of the switch (epoch ms). */
export async function setConfigurationActive(
  client: Client,
  identifier: string,
  active: boolean,
): Promise<number> {
  const r = await client.query<{ at: number }>(
    `UPDATE configuration SET is_active = $2 WHERE identifier = $1
     RETURNING (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at`,
    [identifier, active],
  );
  return r.rows[0]!.at;
}
