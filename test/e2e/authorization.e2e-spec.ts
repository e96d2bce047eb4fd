import { randomUUID } from 'node:crypto';
import {
  APPROVE,
  createToken,
  decide,
  DENY,
  digestOf,
  INBOX_CHANGED,
  ProgressFrame,
  receiptOf,
  RUN_PROGRESS,
  sleep,
  startResting,
  SUBMIT,
} from '../support/decisions';
import { Collected, collect, demoIds, until, waitForRest } from '../support/runs';
import { bootTestApp, GqlResponse, TestApp } from '../support/test-app';

// The authorisation suite (docs/security.md, docs/decisions.md, docs/streaming.md,
// docs/chat-and-skills.md): every operation that takes an id, tried by every demo user
// against runs, conversations, pages, users and tokens that are not theirs. The expected
// answer is derived from the design's rules below, never from what the server answers:
// NOT_FOUND (or null) where the caller may not know the thing exists, FORBIDDEN where they may
// know it but not do this, CHAT_NOT_ALLOWED for the chat without the CHAT grant; no data
// leaks and nothing in the database changes.

const USERS = ['admin', 'alice', 'bob', 'carol', 'dave', 'erin'] as const;
type User = (typeof USERS)[number];
const NON_ADMINS = USERS.filter((u) => u !== 'admin');

/** The demo groups' grants (demo-data.md): approvers carry AGENT_APPROVE; all others CHAT. */
const GRANT_HOLDERS: ReadonlySet<User> = new Set(['bob', 'carol']);
const CHAT_USERS: ReadonlySet<User> = new Set(['alice', 'carol', 'dave', 'erin']);

/** 20-decisions.md "Who may decide": detail = owner or admin; decide = detail or the grant. */
type RunAccess = 'detail' | 'decide' | 'none';
function runAccessOf(user: User, owner: User | null): RunAccess {
  if (owner === null) return 'none';
  if (user === 'admin' || user === owner) return 'detail';
  return GRANT_HOLDERS.has(user) ? 'decide' : 'none';
}

/**
 * 40-conversations-skills.md and the chat module: a conversation is its owner's; admins may
 * read any by id (so they may know it exists: a refused action is FORBIDDEN for them); the
 * chat needs the CHAT grant (admins are admitted).
 */
type ConversationAccess = 'owner' | 'read' | 'none' | 'no-chat';
function conversationAccessOf(user: User, owner: User | null): ConversationAccess {
  if (user !== 'admin' && !CHAT_USERS.has(user)) return 'no-chat';
  if (owner !== null && user === owner) return 'owner';
  if (owner !== null && user === 'admin') return 'read';
  return 'none';
}

interface RunTarget {
  readonly name: string;
  readonly id: string;
  /** Null for an id that does not exist. */
  readonly owner: User | null;
  readonly status: string;
  /** The digest of its (last) pause, passed with decisions so only authorisation refuses. */
  readonly digest: string;
}

interface ConversationTarget {
  readonly name: string;
  readonly id: string;
  readonly owner: User | null;
  readonly digest: string;
}

type Json = Record<string, unknown>;

const RUN_VIEW = `query($id: ID!) { run(id: $id) {
  id status stepCount owner { username } pending { turnDigest calls { toolName arguments preview } } } }`;
const RUN_STEPS = `query($id: ID!) { run(id: $id) { id steps { nodes { sequence kind payload } } } }`;
const RUN_ANSWER = `query($id: ID!) { run(id: $id) { id answer } }`;
const RUNS = `query($filter: RunFilter) { runs(filter: $filter, first: 200) { totalCount nodes { id owner { username } } } }`;
const INBOX = `{ inbox { detailVisible run { id owner { username } pending { calls { arguments } } } } }`;
// why: a small page of steps: the schema's defaults nested (50 runs × 100 steps) are over the cost limit.
const INBOX_STEPS = `{ inbox { run { id steps(first: 10) { nodes { kind } } } } }`;
const CANCEL = `mutation($id: ID!) { cancelRun(runId: $id) { id status } }`;
const RUN_EVENTS = `subscription($runId: ID!) { runEvents(runId: $runId) { kind runId step { sequence kind payload } finalContent } }`;

const CONVERSATION = `query($id: ID!) { conversation(id: $id) {
  id title status owner { username } messages { role text runId } pending { turnDigest } } }`;
const CONVERSATIONS = `{ conversations { id owner { username } } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { id status } }`;
const SET_SKILL = `mutation($input: SetConversationSkillInput!) { setConversationSkill(input: $input) { id skill { identifier } } }`;
const DECIDE_IN_CHAT = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { id status } }`;
const SUBMIT_IN_CHAT = `mutation($input: SubmitConversationInputInput!) { submitConversationInput(input: $input) { id status } }`;
const CREATE_CONVERSATION = `mutation($input: CreateConversationInput!) { createConversation(input: $input) {
  id status owner { username } pending { turnDigest } } }`;
const CONVERSATION_EVENTS = `subscription($id: ID!) { conversationEvents(conversationId: $id) {
  kind conversationId status stepCount message { role text } } }`;

const PAGE = `query($id: ID!) { page(id: $id) { id slug title text { title body seoTitle } children { id } } }`;
const REVOKE = `mutation($id: ID!) { revokeApiToken(tokenId: $id) }`;
const CREATE_TOKEN = `mutation($userId: ID!) { createApiToken(userId: $userId, label: "intrusion") { tokenId token } }`;
const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status owner { username } } }`;

/** Every `extensions.code` in whatever a subscription or response reported. */
function codesIn(errors: unknown): string[] {
  return [...JSON.stringify(errors ?? null).matchAll(/"code":"([A-Z_]+)"/g)].map((m) => m[1]!);
}

/**
 * How streams were refused: their GraphQL codes, or `close <code>` where the server closed the
 * connection (a revoked token's connections close at once, 4401).
 */
function refusalsIn(errors: unknown[]): string[] {
  return errors.flatMap((e) => {
    const code = (e as { code?: unknown } | null)?.code;
    return typeof code === 'number' ? [`close ${code}`] : codesIn([e]);
  });
}

/**
 * An operation sent on a revoked token's connection: UNAUTHENTICATED where it reached the server
 * before the revocation closed the connection (through Redis that takes a moment), else the
 * close (4401) itself, or the refused reconnect (4401 again): the same refusal either way.
 */
function unauthenticatedIn(errors: unknown[]): string[] {
  return refusalsIn(errors).map((c) => (c === 'close 4401' ? 'UNAUTHENTICATED' : c));
}

/** A refused operation: exactly this code, one error, and no data at all. */
function expectRefused(res: GqlResponse<unknown>, code: string, what: string): void {
  // a refused nullable field answers { field: null }; a non-null one nulls the whole data
  const data = res.data && Object.values(res.data).every((v) => v === null) ? null : (res.data ?? null);
  expect({ what, codes: codesIn(res.errors), data }).toEqual({
    what,
    codes: [code],
    data: null,
  });
}

/** A nullable lookup that hides the thing: `{ field: null }` and no error at all. */
function expectHidden(res: GqlResponse<unknown>, field: string, what: string): void {
  expect({ what, status: res.status, errors: res.errors ?? [], data: res.data }).toEqual({
    what,
    status: 200,
    errors: [],
    data: { [field]: null },
  });
}

/** The response without where it came from: two refusals must be indistinguishable. */
const shapeOf = (res: GqlResponse<unknown>) => ({
  status: res.status,
  data: res.data ?? null,
  errors: (res.errors ?? []).map((e) => ({ message: e.message, extensions: e.extensions })),
});

describe('authorisation: nobody reaches what is not theirs', () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  let runs: RunTarget[];
  let conversations: ConversationTarget[];
  let tokenIds: Record<User, string>;
  const clients = new Map<string, ReturnType<TestApp['ws']>>();

  /** One graphql-ws client per demo user (subscriptions multiplex on it). */
  const wsOf = (as: User): ReturnType<TestApp['ws']> => {
    let client = clients.get(as);
    if (!client) {
      client = t.ws(as);
      clients.set(as, client);
    }
    return client;
  };
  const gql = <T = Json>(query: string, variables: Json, as: string) => t.gql<T>(query, variables, as);

  /**
   * Everything a refused operation could have changed: every table's rows (hashed), and the
   * tokens without their last-used time (authentication touches it). The worker's heartbeat
   * is not the users' data.
   */
  async function dbState(): Promise<Record<string, string>> {
    const tables: Array<{ table_name: string }> = await t.dataSource.query(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const state: Record<string, string> = {};
    for (const { table_name: name } of tables) {
      if (name === 'worker_heartbeat' || name === 'api_token') continue;
      const [row] = await t.dataSource.query(
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${name}" x`,
      );
      state[name] = `${row.n} rows, ${row.h}`;
    }
    const tokens = await t.dataSource.query(
      'SELECT id, user_id, label, expires_at, revoked_at FROM api_token ORDER BY id',
    );
    state.api_token = JSON.stringify(tokens);
    return state;
  }

  /** Runs `body` and asserts that the database is exactly as before. */
  async function unchanged(body: () => Promise<void>): Promise<void> {
    const before = await dbState();
    await body();
    expect(await dbState()).toEqual(before);
  }

  const foreignRuns = (as: User) => runs.filter((r) => r.owner !== as);
  const foreignConversations = (as: User) => conversations.filter((c) => c.owner !== as);
  const editor = () => ids.configurations['demo-editor']!;

  async function conversationOf(as: User, input: Json, text?: string): Promise<ConversationTarget> {
    const created = await gql<{ createConversation: { id: string } }>(CREATE_CONVERSATION, { input }, as);
    if (!created.data?.createConversation) throw new Error(`create: ${JSON.stringify(created.errors)}`);
    const id = created.data.createConversation.id;
    let digest = 'f'.repeat(64);
    if (text) {
      const sent = await gql(SEND, { input: { conversationId: id, text } }, as);
      if (!sent.data) throw new Error(`sendMessage: ${JSON.stringify(sent.errors)}`);
      let pending: string | null = null;
      await until(
        async () => {
          const res = await gql<{ conversation: { status: string; pending: { turnDigest: string } | null } }>(
            CONVERSATION,
            { id },
            as,
          );
          pending = res.data?.conversation.pending?.turnDigest ?? null;
          return res.data?.conversation.status === 'AWAITING_APPROVAL' && pending !== null;
        },
        20_000,
        `${as}'s conversation to wait for an approval`,
      );
      digest = pending!;
    }
    return { name: `${as}'s conversation`, id, owner: as, digest };
  }

  beforeAll(async () => {
    t = await bootTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    ids = await demoIds(t);
    const editorRun = async (as: User, page: string) =>
      startResting(t, as, {
        configurationId: editor(),
        prompt: 'authz fixture',
        subjectPageId: ids.pages[page],
      });
    const target = async (name: string, id: string, owner: User): Promise<RunTarget> => {
      const [row] = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [id]);
      return { name, id, owner, status: row.status, digest: await digestOf(t, id) };
    };

    const aliceDoneId = await editorRun('alice', 'Widget');
    const aliceDone = await target('alice’s completed run', aliceDoneId, 'alice');
    receiptOf(await decide(t, 'approve', 'alice', { runId: aliceDoneId, turnDigest: aliceDone.digest }));
    expect(await waitForRest(t, aliceDoneId)).toBe('COMPLETED');
    runs = [
      await target('alice’s waiting run', await editorRun('alice', 'Launch'), 'alice'),
      { ...aliceDone, status: 'COMPLETED' },
      await target('carol’s waiting run', await editorRun('carol', 'Products'), 'carol'),
      await target(
        'dave’s run waiting for input',
        await startResting(
          t,
          'dave',
          { configurationId: ids.configurations['demo-question'], prompt: 'authz fixture' },
          'WAITING_FOR_INPUT',
        ),
        'dave',
      ),
      await target('erin’s waiting run', await editorRun('erin', 'Blog'), 'erin'),
      await target('admin’s waiting run', await editorRun('admin', 'Home'), 'admin'),
      {
        name: 'a run that does not exist',
        id: randomUUID(),
        owner: null,
        status: 'MISSING',
        digest: 'a'.repeat(64),
      },
    ];
    expect(runs.map((r) => r.status)).toEqual([
      'WAITING_FOR_APPROVAL',
      'COMPLETED',
      'WAITING_FOR_APPROVAL',
      'WAITING_FOR_INPUT',
      'WAITING_FOR_APPROVAL',
      'WAITING_FOR_APPROVAL',
      'MISSING',
    ]);

    conversations = [
      await conversationOf(
        'alice',
        { pageId: ids.pages.About, languageId: 0, title: 'alice private' },
        'Sharpen it',
      ),
      await conversationOf('carol', { title: 'carol private' }),
      await conversationOf('dave', { title: 'dave private' }),
      await conversationOf('erin', { pageId: ids.pages.Blog, title: 'erin private' }),
      await conversationOf('admin', { title: 'admin private' }),
      { name: 'a conversation that does not exist', id: randomUUID(), owner: null, digest: 'b'.repeat(64) },
    ];

    const [chat] = await t.dataSource.query('SELECT active_run_id FROM conversation WHERE id = $1', [
      conversations[0]!.id,
    ]);
    runs.splice(1, 0, await target('alice’s chat turn', chat.active_run_id, 'alice'));

    const tokenRows: Array<{ id: string; username: User }> = await t.dataSource.query(
      `SELECT t.id, u.username FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE t.revoked_at IS NULL`,
    );
    tokenIds = Object.fromEntries(tokenRows.map((r) => [r.username, r.id])) as Record<User, string>;
    expect(Object.keys(tokenIds).sort()).toEqual([...USERS].sort());
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('the fixture: the chat turn of alice’s conversation is a run owned by alice, waiting', async () => {
    const [row] = await t.dataSource.query(
      `SELECT u.username, r.status, r.process_pin FROM run r JOIN app_user u ON u.id = r.owner_id WHERE r.id = $1`,
      [runs[1]!.id],
    );
    expect(row).toEqual({ username: 'alice', status: 'WAITING_FOR_APPROVAL', process_pin: null });
    expect(runs[1]!.digest).toBe(conversations[0]!.digest);
  });

  describe('runs by id', () => {
    it.each(USERS)(
      'run(id) as %s: null where they may neither read nor decide; no arguments without detail',
      async (as) => {
        for (const run of foreignRuns(as)) {
          const res = await gql<{
            run: { id: string; owner: { username: string }; pending: Json | null } | null;
          }>(RUN_VIEW, { id: run.id }, as);
          const what = `${as} reads ${run.name}`;
          const access = runAccessOf(as, run.owner);
          if (access === 'none') {
            expectHidden(res, 'run', what);
            expect(shapeOf(res)).toEqual(shapeOf(await gql(RUN_VIEW, { id: randomUUID() }, as)));
            continue;
          }
          expect({ what, errors: res.errors }).toEqual({ what, errors: undefined });
          expect(res.data!.run).toMatchObject({ id: run.id, owner: { username: run.owner } });
          const calls = (res.data!.run!.pending?.calls ?? []) as Array<{ arguments: unknown }>;
          if (run.status.startsWith('WAITING_')) expect(calls.length).toBeGreaterThan(0);
          for (const call of calls) {
            if (access === 'decide')
              expect({ what, arguments: call.arguments }).toEqual({ what, arguments: null });
            else expect(call.arguments).not.toBeNull();
          }
        }
      },
    );

    it.each(USERS)(
      'Run.steps and Run.answer as %s: FORBIDDEN without detail access, never content',
      async (as) => {
        for (const run of foreignRuns(as)) {
          const what = `${as} reads the steps of ${run.name}`;
          const steps = await gql<{ run: { steps: { nodes: unknown[] } | null } | null }>(
            RUN_STEPS,
            { id: run.id },
            as,
          );
          const answer = await gql<{ run: { id: string; answer: string | null } | null }>(
            RUN_ANSWER,
            { id: run.id },
            as,
          );
          switch (runAccessOf(as, run.owner)) {
            case 'none':
              expectHidden(steps, 'run', what);
              expectHidden(answer, 'run', what);
              break;
            case 'decide':
              // the refused field alone is null; the run around it arrives
              expect({ what, codes: codesIn(steps.errors), data: steps.data }).toEqual({
                what,
                codes: ['FORBIDDEN'],
                data: { run: { id: run.id, steps: null } },
              });
              expect({ what, codes: codesIn(answer.errors), data: answer.data }).toEqual({
                what,
                codes: ['FORBIDDEN'],
                data: { run: { id: run.id, answer: null } },
              });
              break;
            case 'detail': {
              const [{ n }] = await t.dataSource.query(
                'SELECT count(*)::int AS n FROM run_step WHERE run_id = $1',
                [run.id],
              );
              expect({ what, errors: steps.errors, count: steps.data!.run!.steps!.nodes.length }).toEqual({
                what,
                errors: undefined,
                count: n,
              });
              expect(answer.errors).toBeUndefined();
              break;
            }
          }
        }
      },
    );

    it.each(USERS)('runs(filter: { ownerId }) as %s: own runs only (admins: anyone’s)', async (as) => {
      const owners = USERS.filter((u) => u !== as);
      for (const owner of owners) {
        const res = await gql<{
          runs: { totalCount: number; nodes: Array<{ id: string; owner: { username: string } }> };
        }>(RUNS, { filter: { ownerId: ids.users[owner] } }, as);
        expect(res.errors).toBeUndefined();
        if (as === 'admin') {
          const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM run WHERE owner_id = $1', [
            ids.users[owner],
          ]);
          expect(res.data!.runs.totalCount).toBe(n);
          expect(res.data!.runs.nodes.every((r) => r.owner.username === owner)).toBe(true);
        } else {
          expect({ owner, runs: res.data!.runs }).toEqual({ owner, runs: { totalCount: 0, nodes: [] } });
        }
      }
      if (as !== 'admin') {
        for (const filter of [null, { configurationId: editor() }, { status: ['WAITING_FOR_APPROVAL'] }]) {
          const own = await gql<{ runs: { nodes: Array<{ owner: { username: string } }> } }>(
            RUNS,
            { filter },
            as,
          );
          expect(own.data!.runs.nodes.map((r) => r.owner.username).filter((u) => u !== as)).toEqual([]);
        }
      }
    });

    it.each(USERS)(
      'inbox as %s: others’ runs only with the grant, and then without arguments or steps',
      async (as) => {
        const res = await gql<{
          inbox: Array<{
            detailVisible: boolean;
            run: { id: string; owner: { username: string }; pending: Json };
          }>;
        }>(INBOX, {}, as);
        expect(res.errors).toBeUndefined();
        const items = res.data!.inbox;
        const waitingForeign = foreignRuns(as).filter((r) => r.status.startsWith('WAITING_'));
        const listed = new Set(items.map((i) => i.run.id));
        for (const run of waitingForeign) {
          expect({ run: run.name, listed: listed.has(run.id) }).toEqual({
            run: run.name,
            listed: runAccessOf(as, run.owner) !== 'none',
          });
        }
        for (const item of items) {
          if (item.run.owner.username === as) continue;
          const access = runAccessOf(as, item.run.owner.username as User);
          expect(access).not.toBe('none');
          expect(item.detailVisible).toBe(access === 'detail');
          const calls = (item.run.pending as { calls: Array<{ arguments: unknown }> }).calls;
          if (access === 'decide') expect(calls.map((c) => c.arguments)).toEqual(calls.map(() => null));
        }
        const steps = await gql(INBOX_STEPS, {}, as);
        const foreign = items.some((i) => i.run.owner.username !== as);
        if (GRANT_HOLDERS.has(as) && foreign) {
          expect(new Set(codesIn(steps.errors))).toEqual(new Set(['FORBIDDEN']));
        } else {
          expect(steps.errors).toBeUndefined();
        }
      },
    );

    it.each(NON_ADMINS)(
      'cancelRun as %s: NOT_FOUND, or FORBIDDEN for a grant holder; nothing changes',
      async (as) => {
        await unchanged(async () => {
          for (const run of foreignRuns(as)) {
            const res = await gql(CANCEL, { id: run.id }, as);
            const access = runAccessOf(as, run.owner);
            expectRefused(res, access === 'none' ? 'NOT_FOUND' : 'FORBIDDEN', `${as} cancels ${run.name}`);
            if (access === 'none') {
              expect(shapeOf(res)).toEqual(shapeOf(await gql(CANCEL, { id: randomUUID() }, as)));
            }
          }
        });
      },
    );

    it.each(NON_ADMINS)(
      'approveRun, denyRun, submitRunInput as %s: NOT_FOUND without access; nothing changes',
      async (as) => {
        await unchanged(async () => {
          for (const run of foreignRuns(as)) {
            const access = runAccessOf(as, run.owner);
            const attempts: Array<[string, string, Json]> = [
              ['approveRun', APPROVE, { runId: run.id, turnDigest: run.digest }],
              ['denyRun', DENY, { runId: run.id, turnDigest: run.digest, reason: 'SKIP' }],
              [
                'submitRunInput',
                SUBMIT,
                { runId: run.id, turnDigest: run.digest, values: { tone: 'formal' } },
              ],
            ];
            for (const [operation, query, input] of attempts) {
              const needs = operation === 'submitRunInput' ? 'WAITING_FOR_INPUT' : 'WAITING_FOR_APPROVAL';
              let expected: string;
              if (access === 'none') expected = 'NOT_FOUND';
              // a grant holder may decide it: only a decision the run does not wait for is refused here
              else if (run.status !== needs) expected = 'RUN_NOT_WAITING';
              else continue;
              const res = await gql(query, { input }, as);
              expectRefused(res, expected, `${as}: ${operation} on ${run.name}`);
              if (access === 'none') {
                const ghost = await gql(query, { input: { ...input, runId: randomUUID() } }, as);
                expect(shapeOf(res)).toEqual(shapeOf(ghost));
              }
            }
          }
        });
      },
    );

    it.each(NON_ADMINS)(
      'runProgress as %s: NOT_FOUND without access; counts only with the grant',
      async (as) => {
        for (const run of foreignRuns(as)) {
          const what = `${as} watches ${run.name}`;
          const stream = collect<ProgressFrame>(wsOf(as), RUN_PROGRESS, { runId: run.id });
          if (runAccessOf(as, run.owner) === 'none') {
            await stream.done;
            expect({ what, events: stream.events, codes: unauthenticatedIn(stream.errors) }).toEqual({
              what,
              events: [],
              codes: ['NOT_FOUND'],
            });
            continue;
          }
          await until(() => stream.events.length >= 1, 10_000, what);
          const [row] = await t.dataSource.query('SELECT step_count, status, turn FROM run WHERE id = $1', [
            run.id,
          ]);
          expect({ what, first: stream.events[0] }).toEqual({
            what,
            first: {
              runProgress: {
                kind: 'PROGRESS',
                runId: run.id,
                stepCount: row.step_count,
                status: row.status,
                turn: row.turn,
                keepAlive: false,
              },
            },
          });
          expect(stream.errors).toEqual([]);
          stream.unsubscribe();
        }
      },
    );

    it.each(NON_ADMINS)(
      'runEvents as %s: FORBIDDEN (admins only), on own, foreign and unknown runs alike',
      async (as) => {
        const own = await gql<{ runs: { nodes: Array<{ id: string }> } }>(RUNS, { filter: null }, as);
        const targets = [
          ...foreignRuns(as).map((r) => r.id),
          ...own.data!.runs.nodes.map((r) => r.id).slice(0, 1),
        ];
        for (const runId of targets) {
          const stream = collect(wsOf(as), RUN_EVENTS, { runId });
          await stream.done;
          expect({ runId, events: stream.events, codes: codesIn(stream.errors) }).toEqual({
            runId,
            events: [],
            codes: ['FORBIDDEN'],
          });
        }
      },
    );
  });

  describe('conversations by id', () => {
    it.each(USERS)(
      'conversation(id) as %s: null for others’ (admins read any), CHAT_NOT_ALLOWED without the chat',
      async (as) => {
        for (const c of foreignConversations(as)) {
          const what = `${as} reads ${c.name}`;
          const res = await gql<{ conversation: { id: string; owner: { username: string } } | null }>(
            CONVERSATION,
            { id: c.id },
            as,
          );
          switch (conversationAccessOf(as, c.owner)) {
            case 'no-chat':
              expectRefused(res, 'CHAT_NOT_ALLOWED', what);
              break;
            case 'none':
              expectHidden(res, 'conversation', what);
              break;
            case 'read':
              expect(res.errors).toBeUndefined();
              expect(res.data!.conversation).toMatchObject({ id: c.id, owner: { username: c.owner } });
              break;
            case 'owner':
              throw new Error('not a foreign conversation');
          }
        }
      },
    );

    it.each(USERS)(
      'conversations as %s: the viewer’s own only (without CHAT: no chat at all)',
      async (as) => {
        const res = await gql<{ conversations: Array<{ id: string; owner: { username: string } }> }>(
          CONVERSATIONS,
          {},
          as,
        );
        if (!CHAT_USERS.has(as) && as !== 'admin') {
          expectRefused(res, 'CHAT_NOT_ALLOWED', `${as} lists conversations`);
          await unchanged(async () => {
            const catalogue = await gql('{ skillCatalogue { identifier } }', {}, as);
            expectRefused(catalogue, 'CHAT_NOT_ALLOWED', `${as} reads the skill catalogue`);
            const created = await gql(CREATE_CONVERSATION, { input: { title: 'mine' } }, as);
            expectRefused(created, 'CHAT_NOT_ALLOWED', `${as} starts a conversation`);
          });
          return;
        }
        expect(res.errors).toBeUndefined();
        const listed = res.data!.conversations;
        expect(listed.filter((c) => c.owner.username !== as)).toEqual([]);
        expect(listed.map((c) => c.id)).toEqual(
          expect.arrayContaining(conversations.filter((c) => c.owner === as).map((c) => c.id)),
        );
      },
    );

    /** The chat's mutations on every foreign conversation: refused, and nothing changes. */
    async function chatActionsRefused(as: User): Promise<void> {
      await unchanged(async () => {
        for (const c of foreignConversations(as)) {
          const access = conversationAccessOf(as, c.owner);
          const expected =
            access === 'no-chat' ? 'CHAT_NOT_ALLOWED' : access === 'read' ? 'FORBIDDEN' : 'NOT_FOUND';
          const attempts: Array<[string, string, Json]> = [
            ['sendMessage', SEND, { conversationId: c.id, text: 'intrusion' }],
            [
              'sendMessage with a view',
              SEND,
              { conversationId: c.id, text: 'intrusion', viewContext: { pageId: ids.pages.Blog } },
            ],
            ['setConversationSkill', SET_SKILL, { conversationId: c.id, skill: 'tone-of-voice' }],
            ['setConversationSkill (remove)', SET_SKILL, { conversationId: c.id, skill: null }],
            [
              'decideConversationApproval',
              DECIDE_IN_CHAT,
              { conversationId: c.id, turnDigest: c.digest, approve: true },
            ],
            [
              'decideConversationApproval (deny)',
              DECIDE_IN_CHAT,
              { conversationId: c.id, turnDigest: c.digest, approve: false },
            ],
            [
              'submitConversationInput',
              SUBMIT_IN_CHAT,
              { conversationId: c.id, turnDigest: c.digest, values: { tone: 'formal' } },
            ],
          ];
          for (const [operation, query, input] of attempts) {
            const res = await gql(query, { input }, as);
            expectRefused(res, expected, `${as}: ${operation} on ${c.name}`);
            if (access === 'none' && c.owner !== null) {
              const ghost = await gql(query, { input: { ...input, conversationId: randomUUID() } }, as);
              expect(shapeOf(res)).toEqual(shapeOf(ghost));
            }
          }
        }
      });
    }

    /** conversationEvents on every foreign conversation: refused at the start, no event. */
    async function conversationEventsRefused(as: User): Promise<void> {
      for (const c of foreignConversations(as)) {
        const access = conversationAccessOf(as, c.owner);
        const expected =
          access === 'no-chat' ? 'CHAT_NOT_ALLOWED' : access === 'read' ? 'FORBIDDEN' : 'NOT_FOUND';
        const stream = collect(wsOf(as), CONVERSATION_EVENTS, { id: c.id });
        await stream.done;
        const what = `${as} watches ${c.name}`;
        expect({ what, events: stream.events, codes: unauthenticatedIn(stream.errors) }).toEqual({
          what,
          events: [],
          codes: [expected],
        });
      }
    }

    it.each(NON_ADMINS)(
      'sendMessage, setConversationSkill, decide and submit in the chat as %s: refused; nothing changes',
      (as) => chatActionsRefused(as),
    );

    it.each(NON_ADMINS)('conversationEvents as %s: refused at the start, no event', (as) =>
      conversationEventsRefused(as),
    );

    // why: admins may read any conversation by id, so they know it exists: acting in someone
    // else's is FORBIDDEN (50-security.md), not NOT_FOUND.
    it('as admin: acting in or watching another’s conversation is FORBIDDEN', async () => {
      await chatActionsRefused('admin');
      await conversationEventsRefused('admin');
    });

    it('as admin, acting in or watching another’s conversation is refused today, and changes nothing', async () => {
      await unchanged(async () => {
        for (const c of foreignConversations('admin')) {
          const sent = await gql(SEND, { input: { conversationId: c.id, text: 'intrusion' } }, 'admin');
          expect(codesIn(sent.errors)).toHaveLength(1);
          expect(['FORBIDDEN', 'NOT_FOUND']).toContain(codesIn(sent.errors)[0]);
          expect(sent.data ?? null).toBeNull();
          const decided = await gql(
            DECIDE_IN_CHAT,
            { input: { conversationId: c.id, turnDigest: c.digest, approve: true } },
            'admin',
          );
          expect(decided.data ?? null).toBeNull();
          expect(['FORBIDDEN', 'NOT_FOUND']).toContain(codesIn(decided.errors)[0]);
          const stream = collect(wsOf('admin'), CONVERSATION_EVENTS, { id: c.id });
          await stream.done;
          expect(stream.events).toEqual([]);
          expect(['FORBIDDEN', 'NOT_FOUND']).toContain(codesIn(stream.errors)[0]);
        }
      });
    });
  });

  describe('pages', () => {
    /** demo-data.md: the Demo site for every group but restricted (Blog and below); Orphan for admins. */
    const mayShow = (as: User, page: string): boolean => {
      if (as === 'admin') return true;
      if (page === 'Orphan') return false;
      if (as === 'erin') return page === 'Blog' || page === 'Launch';
      return true;
    };

    it.each(USERS)(
      'page(id) as %s: null where they may not show it, the same as an unknown id',
      async (as) => {
        const unknown = await gql(PAGE, { id: '999999' }, as);
        expectHidden(unknown, 'page', `${as} reads an unknown page`);
        for (const [name, id] of Object.entries(ids.pages)) {
          const res = await gql<{ page: { id: string; children: Array<{ id: string }> } | null }>(
            PAGE,
            { id },
            as,
          );
          if (!mayShow(as, name)) {
            expectHidden(res, 'page', `${as} reads ${name}`);
            continue;
          }
          expect({ page: name, errors: res.errors }).toEqual({ page: name, errors: undefined });
          const shown = new Set(
            Object.entries(ids.pages)
              .filter(([n]) => mayShow(as, n))
              .map(([, i]) => i),
          );
          expect(res.data!.page!.children.filter((c) => !shown.has(c.id))).toEqual([]);
        }
      },
    );

    it('erin cannot reach a page outside her subtree through a run, a conversation or a turn; nothing is written', async () => {
      const erin = conversations.find((c) => c.owner === 'erin')!;
      await unchanged(async () => {
        for (const page of ['Home', 'About', 'Orphan']) {
          const start = await gql(
            START,
            { input: { configurationId: editor(), prompt: 'read it', subjectPageId: ids.pages[page] } },
            'erin',
          );
          expectRefused(start, 'NOT_FOUND', `erin starts a run about ${page}`);
          const create = await gql(CREATE_CONVERSATION, { input: { pageId: ids.pages[page] } }, 'erin');
          expectRefused(create, 'PAGE_NOT_ACCESSIBLE', `erin chats about ${page}`);
          const send = await gql(
            SEND,
            {
              input: {
                conversationId: erin.id,
                text: 'and this one?',
                viewContext: { pageId: ids.pages[page] },
              },
            },
            'erin',
          );
          expectRefused(send, 'PAGE_NOT_ACCESSIBLE', `erin turns to ${page}`);
        }
      });
    });
  });

  describe('users and tokens', () => {
    const ADMIN_ONLY: Array<[string, string, Json]> = [
      ['users', '{ users { id username } }', {}],
      ['groups', '{ groups { id name grants } }', {}],
      ['tasks', '{ tasks { id identifier } }', {}],
      ['workerStatus', '{ workerStatus { healthy queued } }', {}],
      ['auditEvents', '{ auditEvents { id action } }', {}],
      [
        'createUser',
        'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }',
        { input: { username: 'intruder', isAdmin: true } },
      ],
      [
        'upsertConfiguration',
        'mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }',
        {
          input: {
            identifier: 'demo-editor',
            name: 'hijacked',
            provider: 'scripted',
            model: 'x',
            isActive: false,
          },
        },
      ],
      [
        'upsertSkill',
        'mutation($input: SkillInput!) { upsertSkill(input: $input) { id } }',
        { input: { identifier: 'tone-of-voice', name: 'hijacked', body: 'Obey me.' } },
      ],
      [
        'upsertTask',
        'mutation($input: TaskInput!) { upsertTask(input: $input) { id } }',
        { input: { identifier: 'default', name: 'hijacked', configurationIdentifier: 'demo-inactive' } },
      ],
    ];

    it.each(NON_ADMINS)('admin operations as %s: FORBIDDEN, nothing written', async (as) => {
      await unchanged(async () => {
        for (const [operation, query, variables] of ADMIN_ONLY) {
          expectRefused(await gql(query, variables, as), 'FORBIDDEN', `${as}: ${operation}`);
        }
      });
    });

    it.each(NON_ADMINS)(
      'createApiToken for another user as %s: NOT_FOUND, as for a user that does not exist',
      async (as) => {
        await unchanged(async () => {
          const ghost = await gql(CREATE_TOKEN, { userId: '999999' }, as);
          expectRefused(ghost, 'NOT_FOUND', `${as} creates a token for nobody`);
          for (const other of USERS.filter((u) => u !== as)) {
            const res = await gql(CREATE_TOKEN, { userId: ids.users[other] }, as);
            expectRefused(res, 'NOT_FOUND', `${as} creates a token for ${other}`);
            expect(shapeOf(res)).toEqual(shapeOf(ghost));
          }
        });
      },
    );

    it.each(NON_ADMINS)(
      'apiTokens and revokeApiTokens of another user as %s: NOT_FOUND, as for a user that does not exist',
      async (as) => {
        await unchanged(async () => {
          const LIST = `query($userId: ID) { apiTokens(userId: $userId) { id } }`;
          const REVOKE_ALL = `mutation($userId: ID!) { revokeApiTokens(userId: $userId) }`;
          const ghosts = [
            await gql(LIST, { userId: '999999' }, as),
            await gql(REVOKE_ALL, { userId: '999999' }, as),
          ];
          for (const ghost of ghosts) expectRefused(ghost, 'NOT_FOUND', `${as} names nobody`);
          for (const other of USERS.filter((u) => u !== as)) {
            const list = await gql(LIST, { userId: ids.users[other] }, as);
            expectRefused(list, 'NOT_FOUND', `${as} lists ${other}’s tokens`);
            expect(shapeOf(list)).toEqual(shapeOf(ghosts[0]!));
            const revoke = await gql(REVOKE_ALL, { userId: ids.users[other] }, as);
            expectRefused(revoke, 'NOT_FOUND', `${as} revokes all of ${other}’s tokens`);
            expect(shapeOf(revoke)).toEqual(shapeOf(ghosts[1]!));
          }
        });
      },
    );

    it('createApiToken for another user as admin: FORBIDDEN (such tokens come from the command line)', async () => {
      await unchanged(async () => {
        for (const other of NON_ADMINS) {
          const res = await gql(CREATE_TOKEN, { userId: ids.users[other] }, 'admin');
          expectRefused(res, 'FORBIDDEN', `admin creates a token for ${other}`);
        }
      });
    });

    it.each(NON_ADMINS)(
      'revokeApiToken of another user’s token as %s: NOT_FOUND; the token keeps working',
      async (as) => {
        await unchanged(async () => {
          const ghost = await gql(REVOKE, { id: randomUUID() }, as);
          expectRefused(ghost, 'NOT_FOUND', `${as} revokes an unknown token`);
          for (const other of USERS.filter((u) => u !== as)) {
            const res = await gql(REVOKE, { id: tokenIds[other] }, as);
            expectRefused(res, 'NOT_FOUND', `${as} revokes ${other}’s token`);
            expect(shapeOf(res)).toEqual(shapeOf(ghost));
          }
        });
        for (const other of USERS.filter((u) => u !== as)) {
          const viewer = await gql<{ viewer: { user: { username: string } } }>(
            '{ viewer { user { username } } }',
            {},
            other,
          );
          expect(viewer.data?.viewer.user.username).toBe(other);
        }
      },
    );
  });

  describe('subscriptions lose access at once (revocation) or at the next event', () => {
    /** Waits until a frame about `runId` reached every stream (a subscription gives no other sign it listens). */
    async function listening(
      streams: Array<Collected<{ inboxChanged: { run: { id: string } } }>>,
      owner: User,
    ): Promise<void> {
      const seen = (p: string) => streams.every((s) => s.events.some((e) => e.inboxChanged.run.id === p));
      const probes: string[] = [];
      for (let attempt = 0; attempt < 20 && !probes.some(seen); attempt++) {
        probes.push(
          await startResting(t, owner, {
            configurationId: editor(),
            prompt: 'probe',
            subjectPageId: ids.pages.Home,
          }),
        );
        await until(() => probes.some(seen), 500, 'the probe').catch(() => undefined);
      }
      expect(probes.some(seen)).toBe(true);
    }

    it('runProgress: alice’s token revoked while she watches her run; the server closes the connection at once (4401)', async () => {
      const runId = await startResting(t, 'alice', {
        configurationId: editor(),
        prompt: 'watched',
        subjectPageId: ids.pages.About,
      });
      const second = await createToken(t, ids.users.alice!, 'alice');
      const stream = collect<ProgressFrame>(t.ws(second.token), RUN_PROGRESS, { runId });
      await until(() => stream.events.length >= 1, 10_000, 'the snapshot');
      expect((await gql(REVOKE, { id: second.tokenId }, 'alice')).data).toEqual({ revokeApiToken: true });
      receiptOf(await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) }));
      await stream.done;
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      await sleep(200);
      expect(stream.events.map((e) => e.runProgress.status)).toEqual(['WAITING_FOR_APPROVAL']);
      expect(refusalsIn(stream.errors)).toEqual(['close 4401']);
      // the same token opens nothing any more
      const again = collect<ProgressFrame>(t.ws(second.token), RUN_PROGRESS, { runId });
      await again.done;
      expect(again.events).toEqual([]);
    });

    it('conversationEvents: alice’s token revoked while she watches her conversation; its connection closes at once', async () => {
      const conversation = await conversationOf('alice', { title: 'watched' });
      const second = await createToken(t, ids.users.alice!, 'alice');
      const stream = collect(t.ws(second.token), CONVERSATION_EVENTS, { id: conversation.id });
      const control = collect(wsOf('alice'), CONVERSATION_EVENTS, { id: conversation.id });
      // a skill change publishes a STATUS event and writes no message: it shows that both listen
      for (
        let attempt = 0;
        attempt < 20 && (stream.events.length === 0 || control.events.length === 0);
        attempt++
      ) {
        const skill = attempt % 2 === 0 ? 'tone-of-voice' : null;
        expect(
          (await gql(SET_SKILL, { input: { conversationId: conversation.id, skill } }, 'alice')).errors,
        ).toBeUndefined();
        await until(() => stream.events.length > 0 && control.events.length > 0, 500, 'both').catch(
          () => undefined,
        );
      }
      expect(stream.events.length).toBeGreaterThan(0);
      expect((await gql(REVOKE, { id: second.tokenId }, 'alice')).data).toEqual({ revokeApiToken: true });
      const delivered = stream.events.length;
      const controlled = control.events.length;
      const sent = await gql(
        SEND,
        { input: { conversationId: conversation.id, text: 'after the revocation' } },
        'alice',
      );
      expect(sent.errors).toBeUndefined();
      await stream.done;
      await until(() => control.events.length > controlled + 1, 10_000, 'the control stream');
      await sleep(200);
      expect(stream.events).toHaveLength(delivered);
      expect(refusalsIn(stream.errors)).toEqual(['close 4401']);
      expect(JSON.stringify(stream.events)).not.toContain('after the revocation');
      expect(JSON.stringify(control.events)).toContain('after the revocation');
      control.unsubscribe();
    });

    it('inboxChanged: carol’s token revoked while she watches her inbox; its connection closes at once', async () => {
      const second = await createToken(t, ids.users.carol!, 'carol');
      const stream = collect<{ inboxChanged: { run: { id: string } } }>(
        t.ws(second.token),
        INBOX_CHANGED,
        {},
      );
      await listening([stream], 'alice');
      const delivered = stream.events.length;
      expect((await gql(REVOKE, { id: second.tokenId }, 'carol')).data).toEqual({ revokeApiToken: true });
      const runId = await startResting(t, 'alice', {
        configurationId: editor(),
        prompt: 'x',
        subjectPageId: ids.pages.Home,
      });
      await stream.done;
      expect(stream.events).toHaveLength(delivered);
      expect(stream.events.map((e) => e.inboxChanged.run.id)).not.toContain(runId);
      expect(refusalsIn(stream.errors)).toEqual(['close 4401']);
    });

    it('a connection opened before its token was revoked opens no new stream on it', async () => {
      const runId = runs.find((r) => r.owner === 'admin')!.id;
      const own = conversations.find((c) => c.owner === 'admin')!;
      const second = await createToken(t, ids.users.admin!, 'admin');
      const client = t.ws(second.token);
      // why: graphql-ws authenticates once per connection; a stream that stays open keeps this
      // connection (and the user it started with) alive across the revocation.
      const keeper = collect(client, INBOX_CHANGED, {});
      const before = collect<ProgressFrame>(client, RUN_PROGRESS, { runId });
      await until(() => before.events.length >= 1, 10_000, 'a stream on the connection');
      before.unsubscribe();
      expect((await gql(REVOKE, { id: second.tokenId }, 'admin')).data).toEqual({ revokeApiToken: true });
      const attempts: Array<[string, string, Json]> = [
        ['runProgress', RUN_PROGRESS, { runId }],
        ['runEvents', RUN_EVENTS, { runId }],
        ['inboxChanged', INBOX_CHANGED, {}],
        ['conversationEvents', CONVERSATION_EVENTS, { id: own.id }],
      ];
      for (const [what, query, variables] of attempts) {
        const stream = collect(client, query, variables);
        await stream.done;
        expect({ what, events: stream.events, codes: unauthenticatedIn(stream.errors) }).toEqual({
          what,
          events: [],
          codes: ['UNAUTHENTICATED'],
        });
      }
      keeper.unsubscribe();
    });

    // why: the same for queries and mutations sent over graphql-ws: a connection outlives its
    // token, so every operation over it is authorised again (platform/graphql, graphql.setup.ts).
    it('…and answers no query or mutation over it either (each operation is authorised again)', async () => {
      const runId = await startResting(t, 'alice', {
        configurationId: editor(),
        prompt: 'over an old connection',
        subjectPageId: ids.pages.Widget,
      });
      const second = await createToken(t, ids.users.admin!, 'admin');
      const client = t.ws(second.token);
      const keeper = collect(client, INBOX_CHANGED, {});
      const warm = collect(client, RUN_VIEW, { id: runId });
      await warm.done;
      expect(warm.events).toHaveLength(1);
      expect((await gql(REVOKE, { id: second.tokenId }, 'admin')).data).toEqual({ revokeApiToken: true });
      const read = collect(client, RUN_STEPS, { id: runId });
      await read.done;
      const cancel = collect(client, CANCEL, { id: runId });
      await cancel.done;
      keeper.unsubscribe();
      const [row] = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [runId]);
      // a refused nullable root field may answer { run: null }: never any data
      const withData = (events: unknown[]) =>
        events.filter((e) => Object.values(e as Record<string, unknown>).some((v) => v !== null));
      expect({
        read: withData(read.events),
        cancel: withData(cancel.events),
        codes: [...unauthenticatedIn(read.errors), ...unauthenticatedIn(cancel.errors)],
        status: row.status,
      }).toEqual({
        read: [],
        cancel: [],
        codes: ['UNAUTHENTICATED', 'UNAUTHENTICATED'],
        status: 'WAITING_FOR_APPROVAL',
      });
    });

    it('inboxChanged for users without the grant: their own runs only, never another’s', async () => {
      const watchers = ['alice', 'dave', 'erin'] as const;
      const streams = watchers.map((as) =>
        collect<{ inboxChanged: { run: { id: string } } }>(wsOf(as), INBOX_CHANGED, {}),
      );
      const bob = collect<{ inboxChanged: { detailVisible: boolean; run: { id: string } } }>(
        wsOf('bob'),
        INBOX_CHANGED,
        {},
      );
      const own: Record<string, string[]> = { alice: [], dave: [], erin: [] };
      // each watcher's own run shows its stream listens
      for (const [i, as] of watchers.entries()) {
        const stream = streams[i]!;
        for (
          let attempt = 0;
          attempt < 20 && !own[as]!.some((r) => stream.events.some((e) => e.inboxChanged.run.id === r));
          attempt++
        ) {
          own[as]!.push(
            await startResting(t, as, {
              configurationId: editor(),
              prompt: 'mine',
              subjectPageId: ids.pages.Blog,
            }),
          );
          await until(
            () => own[as]!.some((r) => stream.events.some((e) => e.inboxChanged.run.id === r)),
            500,
            as,
          ).catch(() => undefined);
        }
      }
      const carols = await startResting(t, 'carol', {
        configurationId: editor(),
        prompt: 'not yours',
        subjectPageId: ids.pages.Blog,
      });
      await until(
        () => bob.events.some((e) => e.inboxChanged.run.id === carols),
        10_000,
        'carol’s run in bob’s inbox',
      );
      expect(bob.events.find((e) => e.inboxChanged.run.id === carols)!.inboxChanged.detailVisible).toBe(
        false,
      );
      for (const [i, as] of watchers.entries()) {
        const seen = streams[i]!.events.map((e) => e.inboxChanged.run.id);
        expect({ as, foreign: seen.filter((r) => !own[as]!.includes(r)) }).toEqual({ as, foreign: [] });
        expect(seen.length).toBeGreaterThan(0);
        expect(streams[i]!.errors).toEqual([]);
        streams[i]!.unsubscribe();
      }
      bob.unsubscribe();
    });

    it('bob’s group loses AGENT_APPROVE while he watches alice’s waiting run: the next event ends his stream', async () => {
      const runId = await startResting(t, 'alice', {
        configurationId: editor(),
        prompt: 'watched by bob',
        subjectPageId: ids.pages.Products,
      });
      const progress = collect<ProgressFrame>(wsOf('bob'), RUN_PROGRESS, { runId });
      const inbox = collect<{ inboxChanged: { run: { id: string } } }>(wsOf('bob'), INBOX_CHANGED, {});
      await until(() => progress.events.length >= 1, 10_000, 'bob’s snapshot');
      await listening([inbox], 'alice');
      const [{ grants }] = await t.dataSource.query(
        `SELECT grants FROM access_group WHERE name = 'approvers'`,
      );
      expect(grants).toEqual(['AGENT_APPROVE']);
      await t.dataSource.query(
        `UPDATE access_group SET grants = array_remove(grants, 'AGENT_APPROVE') WHERE name = 'approvers'`,
      );
      try {
        // why: per-event checks share one lookup per token for 250 ms (TokenAuthenticator); a
        // grant changed in the database (there is no API for it) is seen once that has passed.
        await sleep(400);
        expect((await gql('{ viewer { mayDecideApprovals } }', {}, 'bob')).data).toEqual({
          viewer: { mayDecideApprovals: false },
        });
        const before = inbox.events.length;
        receiptOf(await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) }));
        await progress.done;
        expect(await waitForRest(t, runId)).toBe('COMPLETED');
        await sleep(300);
        expect(progress.events.map((e) => e.runProgress.status)).toEqual(['WAITING_FOR_APPROVAL']);
        expect(codesIn(progress.errors)).toEqual(['FORBIDDEN']);
        // his inbox stream hears nothing more of alice's run
        expect(inbox.events.slice(before).map((e) => e.inboxChanged.run.id)).not.toContain(runId);
        // and a new stream is refused at its start
        const again = collect<ProgressFrame>(wsOf('bob'), RUN_PROGRESS, { runId });
        await again.done;
        expect({ events: again.events, codes: codesIn(again.errors) }).toEqual({
          events: [],
          codes: ['NOT_FOUND'],
        });
      } finally {
        await t.dataSource.query(`UPDATE access_group SET grants = $1 WHERE name = 'approvers'`, [grants]);
        inbox.unsubscribe();
      }
    });
  });

  describe('nothing a client sends names the decider or the owner', () => {
    const forged = (extra: Json): Array<[string, Json]> =>
      Object.entries(extra).map(([k, v]) => [k, { [k]: v }]);

    it('forged decidedBy / ownerId / userId fields in decisions are refused as a whole; nothing changes', async () => {
      const run = runs.find((r) => r.name === 'carol’s waiting run')!;
      const input = run.id;
      const fields = forged({
        decidedBy: ids.users.admin,
        userId: ids.users.admin,
        ownerId: ids.users.bob,
        submittedBy: 'admin',
      });
      await unchanged(async () => {
        for (const [field, extra] of fields) {
          for (const [operation, query] of [
            ['approveRun', APPROVE],
            ['denyRun', DENY],
          ] as const) {
            const res = await gql(
              query,
              { input: { runId: input, turnDigest: run.digest, ...extra } },
              'bob',
            );
            expectRefused(res, 'BAD_USER_INPUT', `${operation} with ${field}`);
          }
          const inline = await t.gql(
            `mutation { approveRun(input: { runId: "${input}", turnDigest: "${run.digest}", ${field}: "1" }) { path } }`,
            {},
            'bob',
          );
          // an unknown field in a literal is a validation error of the document (Apollo's code)
          expectRefused(inline, 'GRAPHQL_VALIDATION_FAILED', `inline approveRun with ${field}`);
          const chat = await gql(
            DECIDE_IN_CHAT,
            {
              input: {
                conversationId: conversations[0]!.id,
                turnDigest: conversations[0]!.digest,
                approve: true,
                ...extra,
              },
            },
            'alice',
          );
          expectRefused(chat, 'BAD_USER_INPUT', `decideConversationApproval with ${field}`);
        }
        // values the input schema does not declare are no way in either
        const dave = runs.find((r) => r.name === 'dave’s run waiting for input')!;
        const values = await gql(
          SUBMIT,
          {
            input: {
              runId: dave.id,
              turnDigest: dave.digest,
              values: { tone: 'formal', submittedBy: ids.users.admin },
            },
          },
          'bob',
        );
        expectRefused(values, 'INVALID_INPUT', 'submitRunInput with submittedBy in the values');
      });
    });

    it('a decision by carol records carol as the decider, whatever the request carries around it', async () => {
      const run = runs.find((r) => r.name === 'alice’s waiting run')!;
      const res = await t.gql<{ approveRun: { decision: { decidedBy: { username: string } } } }>(
        APPROVE,
        {
          input: { runId: run.id, turnDigest: run.digest },
          decidedBy: ids.users.admin,
          userId: ids.users.admin,
        },
        'carol',
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.approveRun.decision.decidedBy.username).toBe('carol');
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      const rows = await t.dataSource.query(
        `SELECT u.username FROM decision d JOIN app_user u ON u.id = d.decided_by WHERE d.run_id = $1`,
        [run.id],
      );
      expect(rows).toEqual([{ username: 'carol' }]);
      const steps: Array<{ payload: { decidedBy: unknown } }> = await t.dataSource.query(
        `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'APPROVAL'`,
        [run.id],
      );
      expect(steps.map((s) => String(s.payload.decidedBy))).toEqual([ids.users.carol]);
      const [owner] = await t.dataSource.query('SELECT owner_id FROM run WHERE id = $1', [run.id]);
      expect(String(owner.owner_id)).toBe(ids.users.alice);
    });

    it('an input submitted by bob records bob', async () => {
      const run = runs.find((r) => r.name === 'dave’s run waiting for input')!;
      const res = await gql<{ submitRunInput: { decision: { decidedBy: { username: string } } } }>(
        SUBMIT,
        { input: { runId: run.id, turnDigest: run.digest, values: { tone: 'casual' } } },
        'bob',
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.submitRunInput.decision.decidedBy.username).toBe('bob');
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      const [decision] = await t.dataSource.query('SELECT decided_by FROM decision WHERE run_id = $1', [
        run.id,
      ]);
      expect(String(decision.decided_by)).toBe(ids.users.bob);
      const steps: Array<{ payload: { submittedBy: unknown } }> = await t.dataSource.query(
        `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'INPUT'`,
        [run.id],
      );
      expect(steps.map((s) => String(s.payload.submittedBy))).toEqual([ids.users.bob]);
      const [owner] = await t.dataSource.query('SELECT owner_id FROM run WHERE id = $1', [run.id]);
      expect(String(owner.owner_id)).toBe(ids.users.dave);
    });

    it('startRun and createConversation: a forged owner is refused; the owner is always the caller', async () => {
      await unchanged(async () => {
        for (const [field, extra] of forged({
          ownerId: ids.users.admin,
          userId: ids.users.admin,
          owner: 'admin',
        })) {
          const start = await gql(
            START,
            { input: { configurationId: editor(), prompt: 'mine?', ...extra } },
            'dave',
          );
          expectRefused(start, 'BAD_USER_INPUT', `startRun with ${field}`);
          const create = await gql(CREATE_CONVERSATION, { input: { title: 'mine?', ...extra } }, 'dave');
          expectRefused(create, 'BAD_USER_INPUT', `createConversation with ${field}`);
          const send = await gql(
            SEND,
            { input: { conversationId: conversations[2]!.id, text: 'mine?', ...extra } },
            'dave',
          );
          expectRefused(send, 'BAD_USER_INPUT', `sendMessage with ${field}`);
        }
      });
      // a request that carries an identity anywhere but the token still acts as the token's user
      const res = await fetch(t.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${t.tokens.dave}`,
          'x-user-id': ids.users.admin!,
          'x-forwarded-user': 'admin',
        },
        body: JSON.stringify({
          query: `mutation($input: StartRunInput!, $c: CreateConversationInput!) {
            startRun(input: $input) { id owner { username } }
            createConversation(input: $c) { id owner { username } } }`,
          variables: { input: { configurationId: editor(), prompt: 'whose?' }, c: { title: 'whose?' } },
          extensions: { userId: ids.users.admin, user: 'admin' },
        }),
      });
      const body = (await res.json()) as {
        data: {
          startRun: { id: string; owner: { username: string } };
          createConversation: { id: string; owner: { username: string } };
        };
        errors?: unknown;
      };
      expect(body.errors).toBeUndefined();
      expect(body.data.startRun.owner.username).toBe('dave');
      expect(body.data.createConversation.owner.username).toBe('dave');
      const [run] = await t.dataSource.query('SELECT owner_id FROM run WHERE id = $1', [
        body.data.startRun.id,
      ]);
      const [conversation] = await t.dataSource.query('SELECT owner_id FROM conversation WHERE id = $1', [
        body.data.createConversation.id,
      ]);
      expect([String(run.owner_id), String(conversation.owner_id)]).toEqual([ids.users.dave, ids.users.dave]);
      await waitForRest(t, body.data.startRun.id);
    });

    it('createApiToken for oneself makes a token of oneself only', async () => {
      const own = await createToken(t, ids.users.erin!, 'erin');
      const viewer = await gql<{ viewer: { user: { username: string } } }>(
        '{ viewer { user { username } } }',
        {},
        own.token,
      );
      expect(viewer.data!.viewer.user.username).toBe('erin');
      const [row] = await t.dataSource.query('SELECT user_id FROM api_token WHERE id = $1', [own.tokenId]);
      expect(String(row.user_id)).toBe(ids.users.erin);
    });
  });
});
