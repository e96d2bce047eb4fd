// The authorisation suite (test/e2e/authorization-*.e2e-spec.ts; docs/security.md,
// docs/decisions.md, docs/streaming.md, docs/chat-and-skills.md): every operation that takes an
// id, tried by every demo user against runs, conversations, pages, users and tokens that are
// not theirs. Each file of the suite boots its own app on a fresh database and builds this
// fixture there: runs and conversations of several owners in known states, and every demo
// user's token. The expected answers come from the rules in authorization-rules.ts, never from
// what the server answers: NOT_FOUND (or null) where the caller may not know the thing exists,
// FORBIDDEN where they may know it but not do this, CHAT_NOT_ALLOWED for the chat without the
// CHAT grant; no data leaks and nothing in the database changes.
import { randomUUID } from 'node:crypto';
import {
  ConversationTarget,
  CONVERSATION,
  CREATE_CONVERSATION,
  Json,
  RunTarget,
  SEND,
  User,
  USERS,
} from './authorization-rules';
import { decide, digestOf, receiptOf, startResting } from './decisions';
import { until, waitForRest, type DemoIds } from './runs';
import { useTestApp } from './suite';
import type { GqlResponse, TestApp } from './test-app';

type WsClient = ReturnType<TestApp['ws']>;

export interface AuthorizationFixtureParts {
  /**
   * False: no runs are started (for the files that try only conversations, pages, users and
   * tokens); `runs` is then empty.
   */
  readonly runs?: boolean;
}

export interface AuthorizationFixture {
  readonly t: TestApp;
  readonly ids: DemoIds;
  /** Others' runs to try: waiting, completed, a chat turn, and one that does not exist. */
  readonly runs: RunTarget[];
  /** A conversation of each chat user and admin (alice's waits for an approval), and a ghost. */
  readonly conversations: ConversationTarget[];
  /** Each demo user's token id. */
  readonly tokenIds: Record<User, string>;
  /** One graphql-ws client per demo user (subscriptions multiplex on it). */
  readonly wsOf: (as: User) => WsClient;
  readonly gql: <T = Json>(query: string, variables: Json, as: string) => Promise<GqlResponse<T>>;
  /** Runs `body` and asserts that the database is exactly as before. */
  readonly unchanged: (body: () => Promise<void>) => Promise<void>;
  readonly foreignRuns: (as: User) => RunTarget[];
  readonly foreignConversations: (as: User) => ConversationTarget[];
  /** The id of the demo-editor configuration. */
  readonly editor: () => string;
  /** A run of `as` with demo-editor about `page`, started and resting at its first pause. */
  readonly editorRun: (as: User, page: string, prompt?: string) => Promise<string>;
  /** `as` approves the run's pause (the digest read from the run). */
  readonly approve: (as: User, runId: string) => Promise<void>;
  /** A new conversation of `as`; with `text`, sent and waiting for an approval. */
  readonly conversationOf: (as: User, input: Json, text?: string) => Promise<ConversationTarget>;
}

/** Boots the app before the file's tests, builds the fixture, and closes the app after them. */
export function useAuthorizationFixture(parts: AuthorizationFixtureParts = {}): AuthorizationFixture {
  const { t, ids } = useTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
  let runs: RunTarget[] = [];
  let conversations: ConversationTarget[];
  let tokenIds: Record<User, string>;
  const clients = new Map<string, WsClient>();

  const wsOf = (as: User): WsClient => {
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

  async function unchanged(body: () => Promise<void>): Promise<void> {
    const before = await dbState();
    await body();
    expect(await dbState()).toEqual(before);
  }

  const foreignRuns = (as: User) => runs.filter((r) => r.owner !== as);
  const foreignConversations = (as: User) => conversations.filter((c) => c.owner !== as);
  const editor = () => ids.configurations['demo-editor']!;
  const editorRun = async (as: User, page: string, prompt = 'authz fixture') =>
    startResting(t, as, { configurationId: editor(), prompt, subjectPageId: ids.pages[page] });
  const approve = async (as: User, runId: string) => {
    receiptOf(await decide(t, 'approve', as, { runId, turnDigest: await digestOf(t, runId) }));
  };

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

  const target = async (name: string, id: string, owner: User): Promise<RunTarget> => {
    const [row] = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [id]);
    return { name, id, owner, status: row.status, digest: await digestOf(t, id) };
  };

  async function runTargets(): Promise<RunTarget[]> {
    const aliceDoneId = await editorRun('alice', 'Widget');
    const aliceDone = await target('alice’s completed run', aliceDoneId, 'alice');
    receiptOf(await decide(t, 'approve', 'alice', { runId: aliceDoneId, turnDigest: aliceDone.digest }));
    expect(await waitForRest(t, aliceDoneId)).toBe('COMPLETED');
    const targets = [
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
    expect(targets.map((r) => r.status)).toEqual([
      'WAITING_FOR_APPROVAL',
      'COMPLETED',
      'WAITING_FOR_APPROVAL',
      'WAITING_FOR_INPUT',
      'WAITING_FOR_APPROVAL',
      'WAITING_FOR_APPROVAL',
      'MISSING',
    ]);
    return targets;
  }

  beforeAll(async () => {
    if (parts.runs !== false) runs = await runTargets();

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

    if (parts.runs !== false) {
      const [chat] = await t.dataSource.query('SELECT active_run_id FROM conversation WHERE id = $1', [
        conversations[0]!.id,
      ]);
      runs.splice(1, 0, await target('alice’s chat turn', chat.active_run_id, 'alice'));
    }

    const tokenRows: Array<{ id: string; username: User }> = await t.dataSource.query(
      `SELECT t.id, u.username FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE t.revoked_at IS NULL`,
    );
    tokenIds = Object.fromEntries(tokenRows.map((r) => [r.username, r.id])) as Record<User, string>;
    expect(Object.keys(tokenIds).sort()).toEqual([...USERS].sort());
  }, 120_000);

  return {
    t,
    ids,
    get runs() {
      return runs;
    },
    get conversations() {
      return conversations;
    },
    get tokenIds() {
      return tokenIds;
    },
    wsOf,
    gql,
    unchanged,
    foreignRuns,
    foreignConversations,
    editor,
    editorRun,
    approve,
    conversationOf,
  };
}

/** The suite's outer describe: `body` runs with the app booted and the fixture built. */
export function describeAuthorization(
  parts: AuthorizationFixtureParts,
  body: (fx: AuthorizationFixture) => void,
): void {
  describe('authorisation: nobody reaches what is not theirs', () => body(useAuthorizationFixture(parts)));
}
