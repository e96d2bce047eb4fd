import { TokensService } from '../../src/modules/auth';
import { RequestContext } from '../../src/platform/auth/request-context';
import { errorCode, GqlResponse, TestApp } from './test-app';
import { startRun, waitForRest } from './runs';
import type {
  Decision,
  DecisionReceipt,
  InputRequest,
  PendingToolCall,
  PendingTurn,
  Run,
  RunProgressEvent,
  User,
} from './generated/schema';

/** Helpers for the decision, inbox and progress suites (issue 4). */

export const RUN_QUERY = `query($id: ID!) { run(id: $id) {
  id status stepCount terminationReason isProcessRun
  pending { kind turn turnDigest calls { callId toolName writes arguments preview } inputRequest { toolName schema } }
} }`;

const RECEIPT = `path decision { id kind turn turnDigest denialReason decidedBy { username } outcome } run { id status }`;
export const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { ${RECEIPT} } }`;
export const DENY = `mutation($input: DenyRunInput!) { denyRun(input: $input) { ${RECEIPT} } }`;
export const SUBMIT = `mutation($input: SubmitRunInputInput!) { submitRunInput(input: $input) { ${RECEIPT} } }`;
export const UPSERT_CONFIGURATION = `mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }`;
export const RUN_PROGRESS = `subscription($runId: ID!) { runProgress(runId: $runId) { kind runId stepCount status turn keepAlive } }`;
export const INBOX_CHANGED = `subscription { inboxChanged { detailVisible mayApprove decidableHere run { id status } } }`;

export type Receipt = Pick<DecisionReceipt, 'path'> & {
  decision: Pick<Decision, 'id' | 'kind' | 'turn' | 'turnDigest' | 'denialReason' | 'outcome'> & {
    decidedBy: Pick<User, 'username'>;
  };
  run: Pick<Run, 'id' | 'status'>;
};

export interface ProgressFrame {
  runProgress: Omit<RunProgressEvent, '__typename'>;
}

export type PendingView = Pick<PendingTurn, 'kind' | 'turn' | 'turnDigest'> & {
  calls: Array<Omit<PendingToolCall, '__typename'>>;
  inputRequest: Pick<InputRequest, 'toolName' | 'schema'> | null;
};

/** The pending turn of a run as `as` sees it (null when nothing is pending or visible). */
export async function pendingOf(t: TestApp, runId: string, as = 'admin'): Promise<PendingView | null> {
  const res = await t.gql<{ run: { pending: PendingView | null } | null }>(RUN_QUERY, { id: runId }, as);
  if (res.errors) throw new Error(`run query failed: ${JSON.stringify(res.errors)}`);
  return res.data?.run?.pending ?? null;
}

/** The digest of the turn a run waits on (as admin). */
export async function digestOf(t: TestApp, runId: string): Promise<string> {
  const pending = await pendingOf(t, runId);
  if (!pending) throw new Error(`run ${runId} has no pending turn`);
  return pending.turnDigest;
}

export type Decide = 'approve' | 'deny' | 'submit';

/** The response of a decision mutation. */
export type GqlResult = GqlResponse<Record<string, Receipt>>;

/** One decision over HTTP; `input` is merged over `{ runId, turnDigest }`. */
export async function decide(
  t: TestApp,
  kind: Decide,
  as: string,
  input: Record<string, unknown>,
): Promise<GqlResult> {
  const query = kind === 'approve' ? APPROVE : kind === 'deny' ? DENY : SUBMIT;
  return t.gql<Record<string, Receipt>>(query, { input }, as);
}

/** The receipt of a decision response (fails with the errors when there is none). */
export function receiptOf(res: GqlResult): Receipt {
  const receipt = res.data ? Object.values(res.data)[0] : undefined;
  if (!receipt) throw new Error(`no receipt: ${JSON.stringify(res.errors)}`);
  return receipt;
}

/** Upserts a configuration (as admin) and returns its id. */
export async function upsertConfiguration(t: TestApp, input: Record<string, unknown>): Promise<string> {
  const res = await t.gql<{ upsertConfiguration: { id: string } }>(UPSERT_CONFIGURATION, {
    input: { provider: 'scripted', model: 'scripted', name: String(input.identifier), ...input },
  });
  if (!res.data?.upsertConfiguration) throw new Error(`upsertConfiguration: ${JSON.stringify(res.errors)}`);
  return res.data.upsertConfiguration.id;
}

/** Starts a run and waits until it rests in `expected` (fails otherwise). */
export async function startResting(
  t: TestApp,
  as: string,
  input: Record<string, unknown>,
  expected = 'WAITING_FOR_APPROVAL',
): Promise<string> {
  const run = await startRun(t, as, input);
  const status = await waitForRest(t, run.id);
  if (status !== expected) throw new Error(`run ${run.id} rests in ${status}, not ${expected}`);
  return run.id;
}

/**
 * demo-editor runs (alice's) waiting to write a new SEO title on a page, one per workspace, each
 * approved by carol on the durable path while a worker's heartbeat is live: recorded, left for a
 * pickup the test starts itself.
 */
export async function recordedEdits(
  t: TestApp,
  configurationId: string,
  pageId: string,
  workspaces: readonly number[],
): Promise<string[]> {
  const runIds: string[] = [];
  for (const workspaceId of workspaces) {
    runIds.push(
      await startResting(t, 'alice', {
        configurationId,
        prompt: 'SEO please',
        subjectPageId: pageId,
        workspaceId,
      }),
    );
  }
  await t.dataSource.query(
    `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('recorded-edits-worker', 'worker:test')
     ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
  );
  try {
    for (const runId of runIds) {
      const res = await decide(t, 'approve', 'carol', {
        runId,
        turnDigest: await digestOf(t, runId),
        path: 'DURABLE',
      });
      if (receiptOf(res).path !== 'DURABLE') throw new Error(`run ${runId} was not recorded DURABLE`);
    }
  } finally {
    await t.dataSource.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'recorded-edits-worker'`);
  }
  return runIds;
}

/** What a decision may change, read straight from the database. */
export interface Effects {
  status: string;
  terminationReason: string | null;
  stepCount: number;
  steps: number;
  kinds: string[];
  decisions: number;
  turn: number;
  checkpoint: string | null;
  claimedBy: string | null;
  page: Record<string, unknown> | null;
}

/** The run's row, its steps and decisions, and (optionally) one page text row. */
export async function effects(
  t: TestApp,
  runId: string,
  page?: { pageId: string | number; languageId?: number; workspaceId?: number },
): Promise<Effects> {
  const [run] = await t.dataSource.query(
    `SELECT status, termination_reason, step_count, turn, checkpoint, claimed_by FROM run WHERE id = $1`,
    [runId],
  );
  const steps: Array<{ kind: string }> = await t.dataSource.query(
    'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
    [runId],
  );
  const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM decision WHERE run_id = $1', [
    runId,
  ]);
  let text: Record<string, unknown> | null = null;
  if (page) {
    const rows: Array<Record<string, unknown>> = await t.dataSource.query(
      `SELECT title, body, seo_title, seo_description, updated_at FROM page_text
        WHERE page_id = $1 AND language_id = $2 AND workspace_id = $3`,
      [page.pageId, page.languageId ?? 0, page.workspaceId ?? 0],
    );
    text = rows[0] ?? null;
  }
  return {
    status: run.status,
    terminationReason: run.termination_reason,
    stepCount: run.step_count,
    steps: steps.length,
    kinds: steps.map((s) => s.kind),
    decisions: n,
    turn: run.turn,
    checkpoint: run.checkpoint,
    claimedBy: run.claimed_by,
    page: text,
  };
}

/** Asserts a refusal code and that the refused decision left `before` exactly as it was. */
export async function expectRefusedUnchanged(
  t: TestApp,
  res: GqlResponse<unknown>,
  code: string,
  runId: string,
  before: Effects,
  page?: { pageId: string | number; languageId?: number },
): Promise<void> {
  expect({ code: errorCode(res), data: res.data ?? null }).toEqual({ code, data: null });
  expect(await effects(t, runId, page)).toEqual(before);
}

/**
 * Sends each decision (`kind` as `user`) on the run's current turn and expects every one refused
 * with `code`, none changing the run, its steps, its decision rows or `page`. Returns the digest
 * and the effects compared against, for what the test goes on with.
 */
export async function expectDecisionsRefused(
  t: TestApp,
  runId: string,
  code: string,
  deciders: ReadonlyArray<readonly [Decide, string]>,
  page?: { pageId: string | number; languageId?: number },
): Promise<{ digest: string; before: Effects }> {
  const digest = await digestOf(t, runId);
  const before = await effects(t, runId, page);
  for (const [kind, as] of deciders) {
    const res = await decide(t, kind, as, { runId, turnDigest: digest });
    await expectRefusedUnchanged(t, res, code, runId, before, page);
  }
  return { digest, before };
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Creates a user through the API (as admin) and a token for them; returns both. */
export async function createUserWithToken(
  t: TestApp,
  username: string,
  groupIds: Array<string | number>,
): Promise<{ userId: string; token: string; tokenId: string }> {
  const user = await t.gql<{ createUser: { id: string } }>(
    `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`,
    { input: { username, groupIds: groupIds.map(String) } },
  );
  if (!user.data?.createUser) throw new Error(`createUser: ${JSON.stringify(user.errors)}`);
  const userId = user.data.createUser.id;
  const token = await createToken(t, userId, 'cli');
  return { userId, ...token };
}

/**
 * A new API token for a user: `as` the user's own token (the API makes tokens only for the
 * caller), or `'cli'` for the system context the command line uses (for anyone).
 */
export async function createToken(
  t: TestApp,
  userId: string,
  as: string,
): Promise<{ token: string; tokenId: string }> {
  if (as === 'cli') {
    return t.app
      .get(TokensService)
      .create(RequestContext.system(), { userId: Number(userId), label: `test ${Date.now()}` });
  }
  const res = await t.gql<{ createApiToken: { tokenId: string; token: string } }>(
    `mutation($userId: ID!, $label: String!) { createApiToken(userId: $userId, label: $label) { tokenId token } }`,
    { userId, label: `test ${Date.now()}` },
    as,
  );
  if (!res.data?.createApiToken) throw new Error(`createApiToken: ${JSON.stringify(res.errors)}`);
  return res.data.createApiToken;
}

/**
 * Makes PostgreSQL refuse a write (a BEFORE trigger raising `message`) on `table` where `when`
 * holds: a statement that reaches it fails as a whole. Returns what drops it again.
 */
export async function refuseWrites(
  t: TestApp,
  name: string,
  on: string,
  when: string,
  message: string,
): Promise<() => Promise<void>> {
  const table = on.split(' ').pop()!;
  await t.dataSource.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION '${message}'; END $$`,
  );
  await t.dataSource.query(
    `CREATE TRIGGER ${name} BEFORE ${on} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await t.dataSource.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await t.dataSource.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}
