// The app of a hostile-input file (issue 7; test/e2e/hostile-input-*.e2e-spec.ts): every mutation
// of schema.gql, every argument, fuzzed from one table (hostile-input-mutations.ts) with the
// values of hostile-input-cases.ts. Each case must be refused with a contract code (never HTTP
// 500 nor INTERNAL_SERVER_ERROR), write nothing (every table's rows fingerprinted before and
// after), log no error, and leave the server answering. Each mutation's valid baseline must be
// accepted (and seen as a write), so every refusal came from the fuzzed value alone.
// limits.e2e-spec.ts covers each document limit once over both transports; the hostile-input
// files hit the limits with mutations (nothing written) and under concurrent legitimate traffic.
//
// Each file boots its own app with the same fixture (runs and conversations resting on a
// decision, a token to revoke); this module holds what they share: the boot, the raw POST, the
// fingerprint of every table, and what makes an answer a proper refusal.
import { Logger } from '@nestjs/common';
import type { Client as WsClient } from 'graphql-ws';
import { ERROR_CODES } from '../../src/common/error-codes';
import { createUserWithToken, digestOf, startResting } from './decisions';
import type { Fixture, Vars, Waiting } from './hostile-input-args';
import type { Case } from './hostile-input-cases';
import { until, type DemoIds } from './runs';
import { useTestApp } from './suite';
import type { GqlResponse, TestApp } from './test-app';

const CONTRACT_CODES = new Set<string>(ERROR_CODES);
/** Apollo's codes for a document that does not parse or validate: refusals of input too. */
const DOCUMENT_CODES = ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED'];
export const REFUSED_INPUT = new Set(['BAD_USER_INPUT', ...DOCUMENT_CODES]);

export interface WsAnswer {
  data?: unknown;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** One operation over graphql-ws: its result, or the errors of an `error` message. */
export function overWs(client: WsClient, query: string, variables?: Vars): Promise<WsAnswer> {
  return new Promise((resolve) => {
    let result: WsAnswer = {};
    client.subscribe(
      { query, variables },
      {
        next: (r) => (result = r as WsAnswer),
        error: (e) => resolve({ errors: Array.isArray(e) ? (e as WsAnswer['errors']) : [] }),
        complete: () => resolve(result),
      },
    );
  });
}

export interface Answer {
  status: number;
  contentType: string | null;
  body: Omit<GqlResponse, 'status'> | null;
}

/** What is wrong with the answer to a case that must be refused (empty: nothing). */
export function problemsOf(answer: Answer, mutation: string, c: Case): string[] {
  const problems: string[] = [];
  const codes = answer.body?.errors?.map((e) => e.extensions?.code) ?? [];
  const allowed = new Set([...REFUSED_INPUT, ...(c.codes ?? [])]);
  if (c.tooLarge && answer.status !== 413) problems.push(`HTTP ${answer.status}, not 413`);
  if (!c.tooLarge && answer.status !== 200 && answer.status !== 400) problems.push(`HTTP ${answer.status}`);
  if (!/application\/(graphql-response\+)?json/.test(answer.contentType ?? ''))
    problems.push(`content-type ${answer.contentType}`);
  if (codes.length === 0) problems.push(`no error: ${JSON.stringify(answer.body?.data ?? null)}`);
  for (const code of codes) {
    if (
      typeof code !== 'string' ||
      !(CONTRACT_CODES.has(code) || DOCUMENT_CODES.includes(code)) ||
      code === 'INTERNAL_SERVER_ERROR'
    ) {
      problems.push(`code ${String(code)}`);
    } else if (!allowed.has(code)) {
      problems.push(`code ${code}, expected one of ${[...allowed].join(', ')}`);
    }
  }
  if (answer.body?.data?.[mutation] != null) problems.push('the mutation answered data');
  return problems;
}

/** A hostile-input file's app, its fixture and the spy on error logs (all set in beforeAll). */
export interface HostileInput {
  t: TestApp;
  f: Fixture;
  errorLog: jest.SpyInstance;
  /** A raw POST of `body` to /graphql as `as`, preferring application/graphql-response+json. */
  post(body: string, as?: string): Promise<Answer>;
  /**
   * Every row of every table (less a token's last use and worker heartbeats), as a count and a
   * digest per table, in one query: equal before and after means nothing was written.
   */
  fingerprint(): Promise<Record<string, string>>;
  /** The server still answers a query. */
  alive(): Promise<boolean>;
}

/** Boots the app (useTestApp) and builds the fixture in beforeAll; closes it in afterAll. */
export function hostileInputApp(): HostileInput {
  let fingerprintQuery: string | null = null;
  const h = {} as HostileInput;
  // why: several hundred operations in a minute; the rate limit is limits.e2e-spec's subject.
  const { t, ids } = useTestApp(
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { beforeClose: () => h.errorLog.mockRestore() },
  );
  h.t = t;

  h.post = async (body, as = 'admin') => {
    const res = await fetch(h.t.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // why: a client that prefers application/graphql-response+json gets the 4xx statuses.
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${h.t.tokens[as] ?? as}`,
      },
      body,
    });
    const text = await res.text();
    let parsed: Answer['body'];
    try {
      parsed = JSON.parse(text) as Answer['body'];
    } catch {
      parsed = null;
    }
    return { status: res.status, contentType: res.headers.get('content-type'), body: parsed };
  };

  h.fingerprint = async () => {
    if (!fingerprintQuery) {
      const tables = await h.t.dataSource.query<Array<{ name: string }>>(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            AND table_name NOT IN ('worker_heartbeat', 'migrations') ORDER BY table_name`,
      );
      const row = `(to_jsonb(x) - 'last_used_at')::text`;
      fingerprintQuery = tables
        .map(
          ({ name }) =>
            `SELECT '${name}' AS name, count(*)::int AS n, md5(string_agg(${row}, ',' ORDER BY ${row})) AS h FROM "${name}" x`,
        )
        .join(' UNION ALL ');
    }
    const rows =
      await h.t.dataSource.query<Array<{ name: string; n: number; h: string | null }>>(fingerprintQuery);
    return Object.fromEntries(rows.map((r) => [r.name, `${r.n} rows ${r.h ?? ''}`]));
  };

  h.alive = async () => {
    const res = await h.post(JSON.stringify({ query: '{ viewer { user { username } } }' }));
    const data = res.body?.data as { viewer?: { user?: { username?: string } } } | undefined;
    return res.status === 200 && data?.viewer?.user?.username === 'admin';
  };

  beforeAll(async () => {
    h.f = await fixtureOf(t, ids);
    h.errorLog = jest.spyOn(Logger.prototype, 'error');
  });
  return h;
}

/** What the baselines act on: runs and conversations resting on a decision, a token, a user. */
async function fixtureOf(t: TestApp, ids: DemoIds): Promise<Fixture> {
  const [editors] = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT id FROM access_group WHERE name = 'editors'`,
  );
  const subject = { prompt: 'Sharpen the SEO title', subjectPageId: ids.pages.Home };
  const editor = { ...subject, configurationId: ids.configurations['demo-editor'] };
  const waiting = async (input: Vars, expected?: string): Promise<{ id: string; digest: string }> => {
    const id = await startResting(t, 'alice', input, expected);
    return { id, digest: await digestOf(t, id) };
  };
  const approveRun = await waiting(editor);
  const denyRun = await waiting(editor);
  const inputRun = await waiting(
    { ...subject, configurationId: ids.configurations['demo-question'] },
    'WAITING_FOR_INPUT',
  );
  const cancelRun = (await waiting(editor)).id;
  const token = await t.gql<{ createApiToken: { tokenId: string } }>(
    'mutation { createApiToken(userId: "' + ids.users.alice + '", label: "revoke me") { tokenId } }',
    {},
    'alice',
  );
  if (!token.data) throw new Error(`createApiToken: ${JSON.stringify(token.errors)}`);
  const conversations = {
    skill: await conversation(t),
    send: await conversation(t),
    approval: await waitingConversation(t, 'Fix the title', 'AWAITING_APPROVAL'),
    input: await withDefaultTask(t, 'demo-question', () =>
      waitingConversation(t, 'Write me a greeting', 'AWAITING_INPUT'),
    ),
  };
  return {
    ids,
    editors: String(editors!.id),
    approveRun,
    denyRun,
    inputRun,
    cancelRun,
    tokenId: token.data.createApiToken.tokenId,
    tokenUser: (await createUserWithToken(t, 'fuzz-token-owner', [])).userId,
    conversations,
  };
}

async function conversation(t: TestApp): Promise<string> {
  const res = await t.gql<{ createConversation: { id: string } }>(
    'mutation { createConversation(input: {}) { id } }',
    {},
    'alice',
  );
  if (!res.data) throw new Error(`createConversation: ${JSON.stringify(res.errors)}`);
  return res.data.createConversation.id;
}

/** A conversation of alice's whose first turn rests in `expected`, with the digest shown. */
async function waitingConversation(t: TestApp, text: string, expected: string): Promise<Waiting> {
  const id = await conversation(t);
  const sent = await t.gql(
    'mutation($c: ID!, $t: String!) { sendMessage(input: { conversationId: $c, text: $t }) { id } }',
    { c: id, t: text },
    'alice',
  );
  if (sent.errors) throw new Error(`sendMessage: ${JSON.stringify(sent.errors)}`);
  let state: { status: string; pending: { turnDigest: string } | null } | null = null;
  await until(
    async () => {
      const res = await t.gql<{ conversation: typeof state }>(
        'query($id: ID!) { conversation(id: $id) { status pending { turnDigest } } }',
        { id },
        'alice',
      );
      state = res.data?.conversation ?? null;
      return state !== null && state.status !== 'PROCESSING';
    },
    20_000,
    `conversation ${id} to rest`,
  );
  const rested = state as { status: string; pending: { turnDigest: string } | null } | null;
  if (rested?.status !== expected || !rested.pending) {
    throw new Error(`conversation ${id} rests as ${JSON.stringify(rested)}, not ${expected}`);
  }
  return { id, digest: rested.pending.turnDigest };
}

/** Runs `body` with the chat's default Task on another configuration. */
async function withDefaultTask<T>(t: TestApp, configuration: string, body: () => Promise<T>): Promise<T> {
  const point = (identifier: string) =>
    t.dataSource.query(
      `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = $1)
        WHERE identifier = 'default'`,
      [identifier],
    );
  await point(configuration);
  try {
    return await body();
  } finally {
    await point('demo-editor');
  }
}
