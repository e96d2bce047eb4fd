// The per-user caps on runs (docs/security.md, "Limits on runs"): unfinished runs per user
// (RUNS_MAX_WAITING_PER_USER, TOO_MANY_WAITING_RUNS) and starts per minute (RUN_STARTS_PER_MINUTE,
// RATE_LIMITED), for startRun and chat turns alike; a refused start writes nothing, concurrent
// starts never pass the cap, and with Redis the per-minute budget holds over instances.
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/bootstrap';
import { itOnPostgresAndRedis, redisUrl } from '../support/processes';
import { upsertConfiguration } from '../support/decisions';
import { demoIds, waitForRest } from '../support/runs';
import { usingPostgres } from '../support/test-env';
import { bootTestApp, errorCode, GqlResponse, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
const CANCEL = `mutation($id: ID!) { cancelRun(runId: $id) { status } }`;
const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { id status } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { id status } }`;

type Start = GqlResponse<{ startRun: { id: string; status: string } }>;

/**
 * Rows of the tables a start or a chat turn inserts, for one owner (steps are left out: runs
 * started earlier may still be writing theirs).
 */
async function rowsOf(t: TestApp, username: string): Promise<{ runs: number; messages: number }> {
  const [row] = await t.dataSource.query(
    `SELECT (SELECT count(*) FROM run r JOIN app_user u ON u.id = r.owner_id WHERE u.username = $1)::int AS runs,
            (SELECT count(*) FROM conversation_message m JOIN conversation c ON c.id = m.conversation_id
               JOIN app_user u ON u.id = c.owner_id WHERE u.username = $1)::int AS messages`,
    [username],
  );
  return row;
}

describe('per-user caps on runs', () => {
  const { t, ids } = useTestApp({ RUNS_MAX_WAITING_PER_USER: '3', RUN_STARTS_PER_MINUTE: '1000' });
  let editor: string;

  beforeAll(() => {
    editor = ids.configurations['demo-editor']!;
  });

  const start = (as: string, prompt = 'Sharpen the SEO title'): Promise<Start> =>
    t.gql(START, { input: { configurationId: editor, prompt } }, as);

  it('refuses a start past RUNS_MAX_WAITING_PER_USER with TOO_MANY_WAITING_RUNS and writes nothing', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await start('alice');
      expect(res.errors).toBeUndefined();
      ids.push(res.data!.startRun.id);
    }
    for (const id of ids) expect(await waitForRest(t, id)).toBe('WAITING_FOR_APPROVAL');
    const before = await rowsOf(t, 'alice');

    const refused = await start('alice', 'x'.repeat(20_000));
    expect(errorCode(refused)).toBe('TOO_MANY_WAITING_RUNS');
    expect(refused.errors![0]!.extensions).toMatchObject({ retryable: false, limit: 3 });
    expect(refused.data).toBeNull();
    expect(await rowsOf(t, 'alice')).toEqual(before);

    // the cap is per user: another user still starts
    const other = await start('carol');
    expect(other.errors).toBeUndefined();

    // a finished run frees its place
    expect((await t.gql(CANCEL, { id: ids[0] }, 'alice')).errors).toBeUndefined();
    const again = await start('alice');
    expect(again.errors).toBeUndefined();
    expect((await rowsOf(t, 'alice')).runs).toBe(before.runs + 1);
  });

  it('counts runs that are still running, not only those already in the inbox', async () => {
    const slow = await upsertConfiguration(t, {
      identifier: 'slow-answer',
      providerOptions: { rounds: [{ delayMs: 3000, text: 'Done.' }] },
    });
    const input = { configurationId: slow, prompt: 'Take your time' };
    const results: Start[] = [];
    for (let i = 0; i < 4; i++) results.push(await t.gql(START, { input }, 'dave'));
    expect(results.map((r) => errorCode(r) ?? r.data!.startRun.status)).toEqual([
      'RUNNING',
      'RUNNING',
      'RUNNING',
      'TOO_MANY_WAITING_RUNS',
    ]);
    expect((await rowsOf(t, 'dave')).runs).toBe(3);
    // once they have finished, dave may start again
    for (const r of results.slice(0, 3)) expect(await waitForRest(t, r.data!.startRun.id)).toBe('COMPLETED');
    expect((await t.gql(START, { input }, 'dave')).errors).toBeUndefined();
  });

  it('lets exactly RUNS_MAX_WAITING_PER_USER of many concurrent starts through', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => start('erin', `burst ${i}`)));
    const codes = results.map((r) => errorCode(r) ?? 'OK');
    expect(codes.filter((c) => c === 'OK')).toHaveLength(3);
    expect(codes.filter((c) => c === 'TOO_MANY_WAITING_RUNS')).toHaveLength(9);
    expect((await rowsOf(t, 'erin')).runs).toBe(3);
  });

  it('applies to chat turns: sendMessage past the cap is refused and adds no run or message', async () => {
    // admin: no runs of its own yet in this file
    const conversation = await t.gql<{ createConversation: { id: string; status: string } }>(
      CREATE,
      { input: { title: 'capped' } },
      'admin',
    );
    expect(conversation.errors).toBeUndefined();
    const id = conversation.data!.createConversation.id;
    const started: string[] = [];
    for (let i = 0; i < 3; i++) started.push((await start('admin')).data!.startRun.id);
    for (const runId of started) expect(await waitForRest(t, runId)).toBe('WAITING_FOR_APPROVAL');
    const before = await rowsOf(t, 'admin');

    const refused = await t.gql(SEND, { input: { conversationId: id, text: 'one more' } }, 'admin');
    expect(errorCode(refused)).toBe('TOO_MANY_WAITING_RUNS');
    expect(await rowsOf(t, 'admin')).toEqual(before);
    const [row] = await t.dataSource.query('SELECT status, last_run_id FROM conversation WHERE id = $1', [
      id,
    ]);
    expect(row).toEqual({ status: 'IDLE', last_run_id: null });

    expect((await t.gql(CANCEL, { id: started[0] }, 'admin')).errors).toBeUndefined();
    const sent = await t.gql<{ sendMessage: { status: string } }>(
      SEND,
      { input: { conversationId: id, text: 'now' } },
      'admin',
    );
    expect(sent.data?.sendMessage.status).toBe('PROCESSING');
    expect(await rowsOf(t, 'admin')).toMatchObject({ runs: before.runs + 1, messages: before.messages + 1 });
  });
});

describe('run starts per minute', () => {
  const { t, ids } = useTestApp({ RUN_STARTS_PER_MINUTE: '3', RUNS_MAX_WAITING_PER_USER: '1000' });
  let editor: string;

  beforeAll(() => {
    editor = ids.configurations['demo-editor']!;
  });

  it('refuses the start past RUN_STARTS_PER_MINUTE with RATE_LIMITED, chat turns included, and writes nothing', async () => {
    const input = { configurationId: editor, prompt: 'Sharpen the SEO title' };
    for (let i = 0; i < 2; i++)
      expect((await t.gql<Start>(START, { input }, 'alice')).errors).toBeUndefined();
    const conversation = await t.gql<{ createConversation: { id: string } }>(CREATE, { input: {} }, 'alice');
    const conversationId = conversation.data!.createConversation.id;
    // the third start of the minute is a chat turn
    const sent = await t.gql(SEND, { input: { conversationId, text: 'third' } }, 'alice');
    expect(sent.errors).toBeUndefined();
    const before = await rowsOf(t, 'alice');

    const refused = await t.gql(START, { input }, 'alice');
    expect(errorCode(refused)).toBe('RATE_LIMITED');
    const extensions = refused.errors![0]!.extensions!;
    expect(extensions.retryable).toBe(true);
    expect(extensions.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(extensions.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await rowsOf(t, 'alice')).toEqual(before);

    // other users have budgets of their own
    expect((await t.gql(START, { input }, 'carol')).errors).toBeUndefined();
  });
});

describe('across two instances on one database and one Redis', () => {
  let t: TestApp | null = null;
  let second: INestApplication | null = null;
  let secondUrl = '';
  let editor = '';

  beforeAll(async () => {
    if (!usingPostgres() || !redisUrl()) return;
    t = await bootTestApp({
      REDIS_URL: redisUrl()!,
      RUN_STARTS_PER_MINUTE: '4',
      RUNS_MAX_WAITING_PER_USER: '3',
    });
    second = await createApp(t.config, t.db.target);
    await second.listen(0, '127.0.0.1');
    const { port } = (second.getHttpServer() as { address(): AddressInfo }).address();
    secondUrl = `http://127.0.0.1:${port}/graphql`;
    editor = (await demoIds(t)).configurations['demo-editor']!;
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  async function startAt(url: string, as: string, prompt: string): Promise<Start> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t!.tokens[as]}` },
      body: JSON.stringify({ query: START, variables: { input: { configurationId: editor, prompt } } }),
    });
    return { status: res.status, ...((await res.json()) as Omit<Start, 'status'>) };
  }

  itOnPostgresAndRedis('one start budget per user over both instances (counted in Redis)', async () => {
    const cancel = async (res: Start) => {
      expect(res.errors).toBeUndefined();
      // why: cancelled at once, so the waiting cap (3) stays out of this test
      expect((await t!.gql(CANCEL, { id: res.data!.startRun.id }, 'alice')).errors).toBeUndefined();
    };
    for (const [i, url] of [t!.url, secondUrl, t!.url, secondUrl].entries()) {
      await cancel(await startAt(url, 'alice', `spread ${i}`));
    }
    const refused = await startAt(t!.url, 'alice', 'fifth');
    expect(errorCode(refused)).toBe('RATE_LIMITED');
    expect((await rowsOf(t!, 'alice')).runs).toBe(4);
  });

  itOnPostgresAndRedis('concurrent starts on both instances never pass the waiting cap', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => startAt(i % 2 === 0 ? t!.url : secondUrl, 'erin', `race ${i}`)),
    );
    // four starts fit erin's budget of the minute; only the waiting cap can refuse one
    const codes = results.map((r) => errorCode(r) ?? 'OK');
    expect(codes.filter((c) => c === 'OK')).toHaveLength(3);
    expect(codes.filter((c) => c === 'TOO_MANY_WAITING_RUNS')).toHaveLength(1);
    expect((await rowsOf(t!, 'erin')).runs).toBe(3);
  });
});
