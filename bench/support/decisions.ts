import type { Client } from 'pg';
import type { GqlResponse, GraphQLClient } from './graphql';
import { rawClient } from './pg';
import { startRun, waitForRest } from './runs';
import { inBatches } from './ws-subscriber';

export const APPROVE_RUN = `mutation BenchApprove($input: ApproveRunInput!) {
  approveRun(input: $input) { path decision { id kind turn } run { id status stepCount } } }`;
export const RUN_PENDING = `query BenchPending($id: ID!) { run(id: $id) { status stepCount pending { turn turnDigest } } }`;
export const RUN_PROGRESS = `subscription BenchProgress($runId: ID!) {
  runProgress(runId: $runId) { kind runId stepCount status turn keepAlive } }`;
export const RUN_EVENTS = `subscription BenchEvents($runId: ID!, $afterSequence: Int) {
  runEvents(runId: $runId, afterSequence: $afterSequence) {
    kind runId step { sequence kind round durationMs at payload } outcome finalContent error } }`;

export interface Receipt {
  readonly path: 'INLINE' | 'DURABLE';
  readonly decision: { readonly id: string; readonly kind: string; readonly turn: number };
  readonly run: { readonly id: string; readonly status: string; readonly stepCount: number };
}

/** A run resting in WAITING_FOR_APPROVAL, with what a decider needs. */
export interface WaitingRun {
  readonly runId: string;
  readonly digest: string;
  readonly stepCount: number;
  readonly turn: number;
}

/** The outcome of one approveRun over HTTP, as a client sees it. */
export interface Answer {
  readonly status: number;
  readonly receipt: Receipt | null;
  /** `extensions.code` of each error (empty with a receipt). */
  readonly codes: string[];
}

export function answerOf(res: GqlResponse<{ approveRun: Receipt }>): Answer {
  return {
    status: res.status,
    receipt: res.data?.approveRun ?? null,
    codes: (res.errors ?? []).map((e) => {
      const code = e.extensions?.code;
      return typeof code === 'string' ? code : 'NO_CODE';
    }),
  };
}

/** approveRun over HTTP as whoever `gql` is (`path` null: the server's DECISION_PATH). */
export async function approve(
  gql: GraphQLClient,
  run: WaitingRun,
  path: 'INLINE' | 'DURABLE' | null = null,
): Promise<Answer> {
  const input = { runId: run.runId, turnDigest: run.digest, ...(path ? { path } : {}) };
  return answerOf(await gql.request<{ approveRun: Receipt }>(APPROVE_RUN, { input }));
}

/**
 * Starts a run (as whoever `starter` is), waits until it rests in WAITING_FOR_APPROVAL, and
 * reads its pending turn's digest (as `reader`, who must see the detail: owner or admin).
 */
export async function startWaiting(
  starter: GraphQLClient,
  reader: GraphQLClient,
  observer: Client,
  input: Record<string, unknown>,
): Promise<WaitingRun> {
  const runId = await startRun(starter, input);
  const rest = await waitForRest(observer, runId, 60_000, 5);
  if (rest.status !== 'WAITING_FOR_APPROVAL') {
    throw new Error(`run ${runId} rests in ${rest.status}, not WAITING_FOR_APPROVAL`);
  }
  const data = await reader.must<{
    run: { stepCount: number; pending: { turn: number; turnDigest: string } | null };
  }>(RUN_PENDING, { id: runId });
  if (!data.run.pending) throw new Error(`run ${runId} has no pending turn`);
  return {
    runId,
    digest: data.run.pending.turnDigest,
    stepCount: data.run.stepCount,
    turn: data.run.pending.turn,
  };
}

/**
 * `count` waiting runs, started `concurrency` at a time (outside any measurement); each of
 * the concurrent starters polls on its own connection to `url` (a pg client runs one query
 * at a time).
 */
export async function startWaitingRuns(
  starter: GraphQLClient,
  reader: GraphQLClient,
  url: string,
  input: Record<string, unknown>,
  count: number,
  concurrency = 4,
): Promise<WaitingRun[]> {
  const pollers = await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, () =>
      rawClient(url, 'countersign-bench-starter'),
    ),
  );
  try {
    const free = [...pollers];
    return await inBatches(count, pollers.length, async () => {
      const poller = free.pop()!;
      try {
        return await startWaiting(starter, reader, poller, input);
      } finally {
        free.push(poller);
      }
    });
  } finally {
    await Promise.all(pollers.map((p) => p.end()));
  }
}

/** What the decisions on a set of runs left in the database, per run. */
export interface DecisionTrace {
  readonly runId: string;
  readonly status: string;
  readonly decisions: number;
  readonly approvalSteps: number;
}

export async function decisionTraces(client: Client, runIds: readonly string[]): Promise<DecisionTrace[]> {
  const r = await client.query<{ id: string; status: string; decisions: number; approvals: number }>(
    `SELECT r.id, r.status,
            (SELECT count(*)::int FROM decision d WHERE d.run_id = r.id) AS decisions,
            (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'APPROVAL') AS approvals
       FROM run r WHERE r.id = ANY($1::uuid[])`,
    [[...runIds]],
  );
  const byId = new Map(r.rows.map((row) => [row.id, row]));
  return runIds.map((runId) => {
    const row = byId.get(runId);
    return {
      runId,
      status: row?.status ?? 'MISSING',
      decisions: row?.decisions ?? 0,
      approvalSteps: row?.approvals ?? 0,
    };
  });
}
