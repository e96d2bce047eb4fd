// Resume across instances (issue 18, docs/streaming.md "Slow clients (4413) and resuming"): a
// trace subscriber whose API instance is killed mid-run reconnects to another instance with the
// last sequence it saw and gets every later step once: no gap, no duplicate. Two compiled
// API-only instances and a worker on one PostgreSQL and Redis.
import { createClient } from 'graphql-ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import WebSocket from 'ws';
import {
  build,
  gqlAt,
  itOnPostgresAndRedis,
  kill9,
  killAll,
  redisUrl,
  startServer,
  startWorker,
} from '../support/processes';
import { collect, until } from '../support/runs';
import { createTestDatabase, demoTokens, openDataSource, type TestDatabase } from '../support/test-database';
import { TEST_STATE_KEY, usingPostgres } from '../support/test-env';
import { UPSERT_CONFIGURATION } from '../support/decisions';

const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
const TRACE = `subscription($runId: ID!, $after: Int) { runEvents(runId: $runId, afterSequence: $after) {
  kind outcome step { sequence } pending { turn }
} }`;

interface Frame {
  runEvents: { kind: string; outcome: string | null; step: { sequence: number } | null };
}

const clients: Array<ReturnType<typeof createClient>> = [];
const wsAt = (port: number) => {
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: { authorization: `Bearer ${demoTokens().admin}` },
  });
  clients.push(client);
  return client;
};

const sequences = (frames: Frame[]): number[] =>
  frames.filter((f) => f.runEvents.kind === 'STEP').map((f) => f.runEvents.step!.sequence);

describe('resuming a trace on another instance', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-resume-'));
  let db: TestDatabase | null = null;
  let ds: DataSource | null = null;

  const env = (): Record<string, string> => ({
    DATABASE_URL: db!.url!,
    REDIS_URL: redisUrl()!,
    STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
    DATA_DIR: join(temp, 'data'),
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DECISION_PATH: 'durable',
  });

  beforeAll(async () => {
    if (!usingPostgres() || !redisUrl()) return;
    build();
    db = await createTestDatabase();
    ds = await openDataSource(db, 2);
  }, 240_000);
  afterAll(async () => {
    for (const client of clients) await client.dispose();
    await killAll();
    await ds?.destroy();
    await db?.dispose();
    rmSync(temp, { recursive: true, force: true });
  });

  itOnPostgresAndRedis(
    'the instance the client was on is killed mid-run; on the other one it resumes after its last sequence',
    async () => {
      const [a, b] = await Promise.all([startServer(env()), startServer(env())]);
      await startWorker(env(), ds!);
      const configured = await gqlAt<{ upsertConfiguration: { id: string } }>(
        b.port,
        'admin',
        UPSERT_CONFIGURATION,
        {
          input: {
            identifier: 'resume-reads',
            name: 'resume-reads',
            provider: 'scripted',
            model: 'scripted',
            providerOptions: {
              rounds: [
                { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Resumed' } }] },
                ...Array.from({ length: 8 }, () => ({
                  toolCalls: [{ name: 'pages_read', arguments: {} }],
                  delayMs: 250,
                })),
                { text: 'Read eight times.', delayMs: 250 },
              ],
            },
          },
        },
      );
      expect(configured.errors).toBeUndefined();
      const [page] = await ds!.query<Array<{ id: number }>>(`SELECT id FROM page WHERE slug = '/products'`);
      const started = await gqlAt<{ startRun: { id: string } }>(a.port, 'alice', START, {
        input: {
          configurationId: configured.data!.upsertConfiguration.id,
          prompt: 'Go',
          subjectPageId: String(page!.id),
        },
      });
      expect(started.errors).toBeUndefined();
      const runId = started.data!.startRun.id;
      await until(
        async () =>
          (await ds!.query<Array<{ status: string }>>('SELECT status FROM run WHERE id = $1', [runId]))[0]
            ?.status === 'WAITING_FOR_APPROVAL',
        30_000,
        'the run to wait',
      );
      const [{ turn_digest: digest }] = await ds!.query<[{ turn_digest: string }]>(
        'SELECT turn_digest FROM run WHERE id = $1',
        [runId],
      );

      const first = collect<Frame>(wsAt(a.port), TRACE, { runId, after: 0 });
      await until(() => first.events.some((e) => e.runEvents.kind === 'WAITING'), 10_000, 'WAITING on A');
      const replayed = sequences(first.events).length;
      const approved = await gqlAt<{ approveRun: { path: string } }>(b.port, 'carol', APPROVE, {
        input: { runId, turnDigest: digest },
      });
      expect(approved.errors).toBeUndefined();
      await until(() => sequences(first.events).length >= replayed + 4, 20_000, 'live steps on A');
      await kill9(a);
      await first.done;
      const before = sequences(first.events);
      const seen = before.at(-1)!;

      const second = collect<Frame>(wsAt(b.port), TRACE, { runId, after: seen });
      await Promise.race([
        second.done,
        new Promise((_, reject) => setTimeout(() => reject(new Error('no TERMINAL on B')), 30_000)),
      ]);
      expect(second.errors).toEqual([]);
      const after = sequences(second.events);
      const [{ step_count: stepCount }] = await ds!.query<[{ step_count: number }]>(
        'SELECT step_count FROM run WHERE id = $1',
        [runId],
      );
      expect(after.length).toBeGreaterThan(0);
      expect([...before, ...after]).toEqual(Array.from({ length: stepCount }, (_, i) => i + 1));
      expect(second.events.at(-1)!.runEvents).toMatchObject({ kind: 'TERMINAL', outcome: 'DONE' });
    },
    120_000,
  );
});
