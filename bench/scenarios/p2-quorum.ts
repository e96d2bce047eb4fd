// P2's quorum variant (docs/benchmarks.md): 64 distinct voters approve one waiting run of a
// configuration that needs 3 approvals, all at once, many times. Exactly one continuation
// per storm and exactly three counted votes, in the responses and in the database.
import { generateToken, hashToken } from '../../src/modules/auth/core/token';
import { approve, startWaitingRuns, type Answer, type WaitingRun } from '../support/decisions';
import { upsertScriptedConfiguration } from '../support/fixtures';
import type { GraphQLClient } from '../support/graphql';
import { checkAll, type Check, type Figure } from '../support/report';
import { waitForRest } from '../support/runs';
import { msSince, summarize } from '../support/stats';
import { HOLD_MS, type Rig } from './p2-measure';

export const QUORUM = 3;

/** What one quorum storm left: the answers, and the database's counts after it settled. */
export interface QuorumStorm {
  readonly runId: string;
  readonly wallMs: number;
  readonly answers: Answer[];
}

/** `voters` users of the editors and approvers groups (as carol), each with a token of their own (outside any measurement). */
async function createVoters(rig: Rig, voters: number): Promise<GraphQLClient[]> {
  const clients: GraphQLClient[] = [];
  for (let i = 0; i < voters; i++) {
    const token = generateToken();
    await rig.observer.query(
      `WITH u AS (INSERT INTO app_user (username, display_name, locale, is_admin)
                  VALUES ($1, $1, 'en', false) ON CONFLICT (username) DO UPDATE SET display_name = EXCLUDED.display_name
                  RETURNING id),
            g AS (INSERT INTO group_member (user_id, group_id)
                  SELECT u.id, grp.id FROM u, access_group grp WHERE grp.name IN ('editors', 'approvers')
                  ON CONFLICT DO NOTHING)
       INSERT INTO api_token (user_id, token_hash, label) SELECT id, $2, 'bench voter' FROM u`,
      [`bench-voter-${i}`, hashToken(token)],
    );
    clients.push(rig.app.gql.as(token));
  }
  return clients;
}

/** Runs `storms` quorum storms of `voters` concurrent approvals each. */
export async function quorumStorms(rig: Rig, storms: number, voters: number): Promise<QuorumStorm[]> {
  const configurationId = await upsertScriptedConfiguration(rig.observer, {
    identifier: 'bench-p2-quorum',
    rounds: [
      { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Storm-tested title' } }] },
      // why: held, so late voters meet a run moving on its turn (ALREADY_RESUMING), as in P2.
      { text: 'Done.', delayMs: HOLD_MS },
    ],
    maxIterations: 3,
  });
  await rig.observer.query('UPDATE configuration SET required_approvals = $2 WHERE id = $1', [
    configurationId,
    QUORUM,
  ]);
  const clients = await createVoters(rig, voters);
  const input = { configurationId, prompt: 'Vote on it', subjectPageId: rig.pageId };
  const runs: WaitingRun[] = await startWaitingRuns(rig.owner, rig.owner, rig.db.url, input, storms);
  const out: QuorumStorm[] = [];
  for (const run of runs) {
    const mark = process.hrtime.bigint();
    const answers = await Promise.all(clients.map((c) => approve(c, run)));
    out.push({ runId: run.runId, wallMs: msSince(mark), answers });
  }
  for (const run of runs) await waitForRest(rig.observer, run.runId, 60_000, 20);
  return out;
}

/** The quorum storms' checks, counted in the answers and in the database. */
export async function quorumChecks(rig: Rig, storms: QuorumStorm[]): Promise<Check[]> {
  const counts = await rig.observer.query<{
    id: string;
    status: string;
    votes: number;
    decisions: number;
    approvals: number;
  }>(
    `SELECT r.id, r.status,
            (SELECT count(*)::int FROM approval_vote v WHERE v.run_id = r.id) AS votes,
            (SELECT count(*)::int FROM decision d WHERE d.run_id = r.id) AS decisions,
            (SELECT count(*)::int FROM run_step s WHERE s.run_id = r.id AND s.kind = 'APPROVAL') AS approvals
       FROM run r WHERE r.id = ANY($1::uuid[])`,
    [storms.map((s) => s.runId)],
  );
  const continuations = (s: QuorumStorm) =>
    s.answers.filter((a) => a.receipt && a.receipt.run.status !== 'WAITING_FOR_APPROVAL').length;
  const unexpected = storms.flatMap((s) =>
    s.answers.flatMap((a) => a.codes.filter((c) => c !== 'ALREADY_RESUMING').map((c) => `${s.runId}: ${c}`)),
  );
  return [
    checkAll(
      `quorum of ${QUORUM}: exactly one continuation per storm (receipts)`,
      storms.length,
      storms.flatMap((s) => (continuations(s) === 1 ? [] : [`run ${s.runId}: ${continuations(s)}`])),
    ),
    checkAll(
      `quorum of ${QUORUM}: exactly ${QUORUM} counted votes, one decision, one APPROVAL step, COMPLETED`,
      storms.length,
      counts.rows
        .filter(
          (r) => r.votes !== QUORUM || r.decisions !== 1 || r.approvals !== 1 || r.status !== 'COMPLETED',
        )
        .map(
          (r) => `run ${r.id}: ${r.votes} votes, ${r.decisions} decisions, ${r.approvals} steps, ${r.status}`,
        ),
    ),
    checkAll('quorum: every other voter got ALREADY_RESUMING, nothing else', storms.length, unexpected),
  ];
}

export function quorumFigures(storms: QuorumStorm[]): Figure[] {
  return [
    {
      name: `quorum storm wall time (${storms[0]?.answers.length ?? 0} distinct voters, quorum of ${QUORUM})`,
      unit: 'ms',
      ours: summarize(storms.map((s) => s.wallMs)),
    },
  ];
}
