// Cursor pagination of the lists that grow (docs/pagination.md): runs, the inbox, a run's
// steps, the chat's conversations and messages, users and tokens. Every row once, in the
// documented order, across ties at the same instant; opaque cursors that refuse to page another
// list; the deprecated offsets keep working. Apollo Client's relayStylePagination merging the
// pages is in pagination-apollo-cache.e2e-spec.ts.
import { errorCode, type GqlResponse, type TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { SEEDED_WORKSPACE } from '../../bench/support/volume';
import { useSeededRuns } from '../support/seeded-runs';

interface Page<T> {
  nodes: T[];
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

/** A query's refusal as [query, code, extensions.field], to compare in one expectation. */
async function refusal(t: TestApp, query: string): Promise<[string, unknown, unknown]> {
  const res = await t.gql(query);
  return [query, errorCode(res), res.errors?.[0]?.extensions?.field];
}

const RUNS = `query($first: Int, $after: String, $filter: RunFilter) {
  runs(first: $first, after: $after, filter: $filter) {
    nodes { id } edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } hasMore
  }
}`;
const INBOX = `query($first: Int, $after: String) {
  inboxConnection(first: $first, after: $after) {
    nodes { run { id } } edges { cursor node { run { id } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;
const STEPS = `query($id: ID!, $first: Int, $after: String) {
  run(id: $id) { steps(first: $first, after: $after) {
    nodes { sequence } edges { cursor node { sequence } } pageInfo { hasNextPage hasPreviousPage endCursor } hasMore
  } }
}`;

describe('cursor pagination', () => {
  const { t } = useSeededRuns(
    [
      { count: 230, owners: ['alice', 'bob', 'carol'], waitingEvery: 10, stepsPerRun: 0 },
      // 40 runs created at one instant: only the id orders them.
      {
        count: 40,
        owners: ['alice', 'bob'],
        waitingEvery: 4,
        stepsPerRun: 0,
        spacingSeconds: 0,
        finishedDaysAgo: 1,
      },
    ],
    120_000,
  );

  /** Pages through a connection with `first: size`, following endCursor; the ids seen. */
  async function pageAll<T>(
    query: string,
    field: (data: Record<string, unknown>) => Page<T>,
    size: number,
    as: string,
    variables: Record<string, unknown> = {},
  ): Promise<{ ids: T[]; pages: number }> {
    const ids: T[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res = await t.gql<Record<string, unknown>>(query, { ...variables, first: size, after }, as);
      expect(res.errors).toBeUndefined();
      const page = field(res.data!);
      pages++;
      expect(page.nodes).toEqual(page.edges.map((e) => e.node));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
      ids.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      expect(page.nodes).toHaveLength(size);
      after = page.pageInfo.endCursor;
    }
    return { ids, pages };
  }

  async function sqlIds(sql: string, params: unknown[] = []): Promise<string[]> {
    return (await t.dataSource.query<Array<{ id: string }>>(sql, params)).map((r) => r.id);
  }

  it('pages every run once, newest first and by id within an instant, for an admin', async () => {
    const { ids, pages } = await pageAll(RUNS, (d) => d.runs as Page<{ id: string }>, 7, 'admin');
    const expected = await sqlIds(`SELECT id FROM run ORDER BY created_at DESC, id DESC`);
    expect(expected.length).toBeGreaterThanOrEqual(270);
    expect(ids.map((r) => r.id)).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 7));
  });

  it("pages only the viewer's own runs for a user, with the filter applied", async () => {
    const { ids } = await pageAll(RUNS, (d) => d.runs as Page<{ id: string }>, 9, 'alice', {
      filter: { status: ['COMPLETED'] },
    });
    const expected = await sqlIds(
      `SELECT r.id FROM run r JOIN app_user u ON u.id = r.owner_id
        WHERE u.username = 'alice' AND r.status = 'COMPLETED' ORDER BY r.created_at DESC, r.id DESC`,
    );
    expect(expected.length).toBeGreaterThan(50);
    expect(ids.map((r) => r.id)).toEqual(expected);
  });

  it('pages the inbox oldest wait first: everyone for an approver, own runs for an owner', async () => {
    const everyone = await pageAll(
      INBOX,
      (d) => d.inboxConnection as Page<{ run: { id: string } }>,
      6,
      'bob',
    );
    const waiting = await sqlIds(
      `SELECT id FROM run WHERE status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT') ORDER BY waiting_since, id`,
    );
    expect(waiting.length).toBeGreaterThan(30);
    expect(everyone.ids.map((i) => i.run.id)).toEqual(waiting);

    const own = await pageAll(INBOX, (d) => d.inboxConnection as Page<{ run: { id: string } }>, 4, 'alice');
    const alices = await sqlIds(
      `SELECT r.id FROM run r JOIN app_user u ON u.id = r.owner_id
        WHERE u.username = 'alice' AND r.status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT')
        ORDER BY r.waiting_since, r.id`,
    );
    expect(alices.length).toBeGreaterThan(5);
    expect(own.ids.map((i) => i.run.id)).toEqual(alices);
  });

  it("pages a run's steps by cursor and refuses another run's cursor", async () => {
    const [a, b] = await sqlIds(`SELECT id FROM run WHERE workspace_id = $1 ORDER BY id LIMIT 2`, [
      SEEDED_WORKSPACE,
    ]);
    await t.dataSource.query(
      `INSERT INTO run_step (run_id, sequence, kind, round, payload)
       SELECT r, s, 'LLM', s, '{}'::jsonb FROM unnest($1::uuid[]) r, generate_series(1, 250) s`,
      [[a, b]],
    );
    type StepPage = Page<{ sequence: number }> & { hasMore: boolean };
    const { ids, pages } = await pageAll(STEPS, (d) => (d.run as { steps: StepPage }).steps, 100, 'admin', {
      id: a,
    });
    expect(ids.map((s) => s.sequence)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(pages).toBe(3);

    const first = await t.gql<{ run: { steps: StepPage } }>(STEPS, { id: a, first: 10 });
    const foreign = await t.gql(STEPS, { id: b, first: 10, after: first.data!.run.steps.pageInfo.endCursor });
    expect(errorCode(foreign)).toBe('BAD_USER_INPUT');
    expect(foreign.errors?.[0]?.extensions?.field).toBe('after');
  });

  it("refuses a malformed cursor and another list's cursor with BAD_USER_INPUT on `after`", async () => {
    const runsPage = await t.gql<{ runs: Page<{ id: string }> }>(RUNS, { first: 2 });
    const runsCursor = runsPage.data!.runs.pageInfo.endCursor;
    for (const [query, after] of [
      [INBOX, runsCursor],
      [RUNS, 'not-a-cursor!'],
      [RUNS, Buffer.from('["runs","yesterday","x"]').toString('base64url')],
      [RUNS, Buffer.from('{"a":1}').toString('base64url')],
    ] as const) {
      const res = await t.gql(query, { first: 3, after });
      expect(errorCode(res)).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.extensions?.field).toBe('after');
    }
  });

  it('refuses a negative page size or offset, and an empty id filter, with BAD_USER_INPUT', async () => {
    const [{ id: runId }] = await t.dataSource.query<[{ id: string }]>(`SELECT id FROM run LIMIT 1`);
    for (const [query, field] of [
      ['{ runs(first: -1) { nodes { id } pageInfo { hasNextPage endCursor } } }', 'first'],
      ['{ inboxConnection(first: -1) { nodes { run { id } } } }', 'first'],
      ['{ inbox(first: -1) { run { id } } }', 'first'],
      [`{ run(id: "${runId}") { steps(first: -1) { nodes { sequence } } } }`, 'first'],
      ['{ runs(first: 5, offset: -1) { nodes { id } } }', 'offset'],
      ['{ inbox(first: 5, offset: -5) { run { id } } }', 'offset'],
      ['{ runs(filter: { ownerId: "" }) { totalCount } }', 'ownerId'],
      ['{ runs(filter: { configurationId: "" }) { totalCount } }', 'configurationId'],
    ] as const) {
      expect(await refusal(t, query)).toEqual([query, 'BAD_USER_INPUT', field]);
    }
    // 0 is Relay's empty page
    const empty = await t.gql<{ runs: Page<{ id: string }> }>('{ runs(first: 0) { nodes { id } } }');
    expect(empty.data!.runs.nodes).toEqual([]);
  });

  it('keeps the deprecated offsets working for one release', async () => {
    const all = await sqlIds(`SELECT id FROM run ORDER BY created_at DESC, id DESC LIMIT 15`);
    const res = await t.gql<{ runs: { nodes: Array<{ id: string }>; totalCount: number } }>(
      `{ runs(first: 5, offset: 10) { nodes { id } totalCount } }`,
    );
    expect(res.data!.runs.nodes.map((r) => r.id)).toEqual(all.slice(10, 15));
    const [{ n }] = (await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM run`,
    )) as [{ n: number }];
    expect(res.data!.runs.totalCount).toBe(n);

    const inbox = await t.gql<{ inbox: Array<{ run: { id: string } }> }>(
      `{ inbox(first: 3, offset: 2) { run { id } } }`,
      {},
      'bob',
    );
    const waiting = await sqlIds(
      `SELECT id FROM run WHERE status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT') ORDER BY waiting_since, id LIMIT 5`,
    );
    expect(inbox.data!.inbox.map((i) => i.run.id)).toEqual(waiting.slice(2, 5));
  });
});

describe('cursor pagination of the chat and the identity lists', () => {
  const { t } = useTestApp({ WORKER_ENABLED: 'false' });
  let conversationId: string;

  beforeAll(async () => {
    const [{ id: adminId }] = await t.dataSource.query<[{ id: number }]>(
      `SELECT id FROM app_user WHERE username = 'admin'`,
    );
    // 9 conversations, three of them updated at the same instant; one archived (never listed).
    await t.dataSource.query(
      `INSERT INTO conversation (id, owner_id, title, updated_at, archived_at)
       SELECT gen_random_uuid(), $1, 'c' || g, now() - make_interval(secs => (g / 3) * 60),
              CASE WHEN g = 10 THEN now() END
         FROM generate_series(1, 10) g`,
      [adminId],
    );
    [{ id: conversationId }] = await t.dataSource.query<[{ id: string }]>(
      `SELECT id FROM conversation WHERE title = 'c1'`,
    );
    await t.dataSource.query(
      `INSERT INTO conversation_message (conversation_id, role, text)
       SELECT $1, CASE WHEN g % 2 = 0 THEN 'ASSISTANT' ELSE 'USER' END, 'm' || g FROM generate_series(1, 130) g`,
      [conversationId],
    );
  }, 60_000);

  type Conn<T> = Page<T>;

  it('pages conversations most recently active first, archived ones left out', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: GqlResponse<{ conversationsConnection: Conn<{ title: string }> }> = await t.gql(
        `query($after: String) { conversationsConnection(first: 4, after: $after) {
           nodes { title } edges { cursor node { title } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
        { after },
      );
      expect(res.errors).toBeUndefined();
      const page = res.data!.conversationsConnection;
      seen.push(...page.nodes.map((n) => n.title));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    const expected = (
      await t.dataSource.query<Array<{ title: string }>>(
        `SELECT title FROM conversation WHERE archived_at IS NULL ORDER BY updated_at DESC, id DESC`,
      )
    ).map((r) => r.title);
    expect(seen).toEqual(expected);
    expect(seen).toHaveLength(9);
  });

  it('pages messages forward from the oldest and backward from the latest, each once and in order', async () => {
    const MESSAGES = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
      conversation(id: $id) { messagesConnection(first: $first, after: $after, last: $last, before: $before) {
        nodes { text } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    type MessagePage = { conversation: { messagesConnection: Conn<{ text: string }> } };
    const all = Array.from({ length: 130 }, (_, i) => `m${i + 1}`);

    const forward: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: GqlResponse<MessagePage> = await t.gql(MESSAGES, { id: conversationId, first: 50, after });
      const page = res.data!.conversation.messagesConnection;
      forward.push(...page.nodes.map((n) => n.text));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toEqual(all);

    // Backward: the latest 50 first (oldest first within the page), then scroll up.
    const pages: string[][] = [];
    let before: string | null = null;
    for (;;) {
      const res: GqlResponse<MessagePage> = await t.gql(MESSAGES, { id: conversationId, last: 50, before });
      const page = res.data!.conversation.messagesConnection;
      pages.push(page.nodes.map((n) => n.text));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(pages[0]).toEqual(all.slice(80));
    expect(pages.reverse().flat()).toEqual(all);

    const both = await t.gql(MESSAGES, { id: conversationId, first: 5, last: 5 });
    expect(errorCode(both)).toBe('BAD_USER_INPUT');
  });

  it("pages users by id and a user's tokens newest first, for admins; tokens of others stay hidden", async () => {
    const users = await t.gql<{ usersConnection: Conn<{ id: string }> }>(
      `{ usersConnection(first: 2) { nodes { id } pageInfo { hasNextPage endCursor } } }`,
    );
    const rest = await t.gql<{ usersConnection: Conn<{ id: string }> }>(
      `query($after: String) { usersConnection(first: 100, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`,
      { after: users.data!.usersConnection.pageInfo.endCursor },
    );
    const ids = [...users.data!.usersConnection.nodes, ...rest.data!.usersConnection.nodes].map((u) =>
      Number(u.id),
    );
    const expected = (
      await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM app_user ORDER BY id`)
    ).map((r) => r.id);
    expect(ids).toEqual(expected);
    expect(errorCode(await t.gql(`{ usersConnection(first: 2) { nodes { id } } }`, {}, 'alice'))).toBe(
      'FORBIDDEN',
    );

    for (let i = 0; i < 5; i++) {
      await t.gql(
        `mutation($label: String!) { createApiToken(userId: "${await idOf('alice')}", label: $label) { token } }`,
        { label: `t${i}` },
        'alice',
      );
    }
    const TOKENS = `query($after: String) { apiTokensConnection(first: 2, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: GqlResponse<{ apiTokensConnection: Conn<{ id: string }> }> = await t.gql(
        TOKENS,
        { after },
        'alice',
      );
      expect(res.errors).toBeUndefined();
      seen.push(...res.data!.apiTokensConnection.nodes.map((n) => n.id));
      if (!res.data!.apiTokensConnection.pageInfo.hasNextPage) break;
      after = res.data!.apiTokensConnection.pageInfo.endCursor;
    }
    const tokenIds = (
      await t.dataSource.query<Array<{ id: string }>>(
        `SELECT t.id FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE u.username = 'alice'
          ORDER BY t.created_at DESC, t.id DESC`,
      )
    ).map((r) => r.id);
    expect(tokenIds.length).toBeGreaterThanOrEqual(6);
    expect(seen).toEqual(tokenIds);
    const foreign = await t.gql(
      `query($u: ID) { apiTokensConnection(userId: $u) { nodes { id } } }`,
      { u: await idOf('bob') },
      'alice',
    );
    expect(errorCode(foreign)).toBe('NOT_FOUND');
  });

  it('refuses a negative page size on the chat, identity and webhook lists, and an empty id filter', async () => {
    for (const [query, field] of [
      ['{ conversationsConnection(first: -1) { nodes { id } } }', 'first'],
      [`{ conversation(id: "${conversationId}") { messagesConnection(last: -1) { nodes { id } } } }`, 'last'],
      [
        `{ conversation(id: "${conversationId}") { messagesConnection(first: -3) { nodes { id } } } }`,
        'first',
      ],
      ['{ usersConnection(first: -1) { nodes { id } } }', 'first'],
      ['{ apiTokensConnection(first: -1) { nodes { id } } }', 'first'],
      ['{ webhookEndpoints(first: -1) { nodes { id } } }', 'first'],
      ['{ webhookDeliveries(first: -1) { nodes { id } } }', 'first'],
      ['{ webhookDeliveries(endpointId: "") { nodes { id } } }', 'endpointId'],
    ] as const) {
      expect(await refusal(t, query)).toEqual([query, 'BAD_USER_INPUT', field]);
    }
  });

  async function idOf(username: string): Promise<string> {
    const [{ id }] = await t.dataSource.query<[{ id: number }]>(
      `SELECT id FROM app_user WHERE username = $1`,
      [username],
    );
    return String(id);
  }
});
