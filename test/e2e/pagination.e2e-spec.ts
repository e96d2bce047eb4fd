// Cursor pagination of the lists that grow (docs/pagination.md): runs, the inbox, a run's
// steps. Every row once, in the documented order, across ties at the same instant; opaque
// cursors that refuse to page another list; the deprecated offsets keep working.
import { bootTestApp, errorCode, type TestApp } from '../support/test-app';
import { SEEDED_WORKSPACE, seedRuns } from '../../bench/support/volume';

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
  let t: TestApp;

  beforeAll(async () => {
    t = await bootTestApp({ WORKER_ENABLED: 'false' });
    await seedRuns((sql, params) => t.dataSource.query(sql, params), {
      count: 230,
      owners: ['alice', 'bob', 'carol'],
      waitingEvery: 10,
      stepsPerRun: 0,
    });
    // 40 runs created at one instant: only the id orders them.
    await seedRuns((sql, params) => t.dataSource.query(sql, params), {
      count: 40,
      owners: ['alice', 'bob'],
      waitingEvery: 4,
      stepsPerRun: 0,
      spacingSeconds: 0,
      finishedDaysAgo: 1,
    });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

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
