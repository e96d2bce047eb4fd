// Streams at scale (issue 18, docs/streaming.md): an event is authorised, built and serialised
// once per audience, not per subscriber, while a revoked token or a lost grant still stops
// delivery at the next event; protocol pings at WS_KEEPALIVE_SECONDS.
import type { DataSource } from 'typeorm';
import { WebSocket } from 'ws';
import {
  createToken,
  decide,
  digestOf,
  INBOX_CHANGED,
  ProgressFrame,
  receiptOf,
  RUN_PROGRESS,
  upsertConfiguration,
} from '../support/decisions';
import { collect, Collected, startRun, until, waitForRest } from '../support/runs';
import { bootTestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { itOnPostgres } from '../support/test-database';
import { refusalsIn } from '../support/authorization-rules';

const RUN_EVENTS = `subscription($runId: ID!, $after: Int) { runEvents(runId: $runId, afterSequence: $after) {
  kind runId outcome step { sequence kind payload } pending { turn }
} }`;

/** The bound on a socket's outgoing buffer in this file. */
const BUFFER = 256 * 1024;

interface TraceFrame {
  runEvents: {
    kind: 'STEP' | 'WAITING' | 'TERMINAL';
    runId: string;
    outcome: string | null;
    step: { sequence: number; kind: string; payload: unknown } | null;
    pending: { turn: number } | null;
  };
}

/** Counts the statements the app sends while `fn` runs (TypeORM's logger), timers' claims aside. */
async function statements(ds: DataSource, fn: () => Promise<unknown>): Promise<string[]> {
  const logger = ds.logger as unknown as { logQuery: (q: string, p?: unknown[]) => unknown };
  const original = logger.logQuery.bind(logger);
  const seen: string[] = [];
  logger.logQuery = (sql: string, params?: unknown[]) => {
    if (!/SKIP LOCKED/.test(sql)) seen.push(sql);
    return original(sql, params);
  };
  try {
    await fn();
  } finally {
    logger.logQuery = original;
  }
  return seen;
}

describe('streams at scale', () => {
  const { t, ids } = useTestApp({ WORKER_ENABLED: 'false', WS_MAX_BUFFERED_BYTES: String(BUFFER) });
  let reads: string;
  let twoPauses: string;

  beforeAll(async () => {
    reads = await upsertConfiguration(t, {
      identifier: 'scale-reads',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Scaled' } }] },
          ...Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'pages_read', arguments: {} }] })),
          { text: 'Read five times.' },
        ],
      },
    });
    twoPauses = await upsertConfiguration(t, {
      identifier: 'scale-two-pauses',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'One' } }] },
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Two' } }] },
          { text: 'Both.' },
        ],
      },
    });
  });

  const tokensOf = async (user: string, n: number): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push((await createToken(t, ids.users[user]!, 'cli')).token);
    return out;
  };

  const waiting = async (configurationId: string, page: string): Promise<string> => {
    const run = await startRun(t, 'alice', { configurationId, prompt: 'Go', subjectPageId: ids.pages[page] });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    return run.id;
  };

  /**
   * One run followed by `n` subscribers with a token each (half bob on runProgress, half admins
   * on runEvents); returns the statements from the approval until every stream ended.
   */
  async function followed(n: number, page: string) {
    const [bobs, admins] = await Promise.all([tokensOf('bob', n / 2), tokensOf('admin', n / 2)]);
    const runId = await waiting(reads, page);
    const progress = bobs.map((token) => collect<ProgressFrame>(t.ws(token), RUN_PROGRESS, { runId }));
    const traces = admins.map((token) => collect<TraceFrame>(t.ws(token), RUN_EVENTS, { runId, after: 0 }));
    const all: Array<Collected<unknown>> = [...progress, ...traces];
    await until(() => all.every((s) => s.events.length >= 1), 20_000, 'every first frame');
    await until(() => traces.every((s) => s.events.some((e) => e.runEvents.kind === 'WAITING')));
    const digest = await digestOf(t, runId);
    const sent = await statements(t.dataSource, async () => {
      receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest }));
      await Promise.all(all.map((s) => s.done));
    });
    for (const s of all) expect(s.errors).toEqual([]);
    return { sent, progress, traces };
  }

  it('forty subscribers cost the same statements as two: authorised from memory, built once per audience', async () => {
    const two = await followed(2, 'About');
    const forty = await followed(40, 'Blog');
    // every subscriber got the whole stream, and each audience the same frames
    const progress = forty.progress.map((s) => JSON.stringify(s.events));
    expect(new Set(progress).size).toBe(1);
    expect(forty.progress[0]!.events.at(-1)!.runProgress).toMatchObject({
      kind: 'SETTLED',
      status: 'COMPLETED',
    });
    const steps = (s: Collected<TraceFrame>) => s.events.filter((e) => e.runEvents.kind === 'STEP');
    expect(new Set(forty.traces.map((s) => JSON.stringify(steps(s)))).size).toBe(1);
    expect(steps(forty.traces[0]!).map((e) => e.runEvents.step!.sequence)).toEqual(
      Array.from({ length: steps(forty.traces[0]!).length }, (_, i) => i + 1),
    );
    expect(forty.traces[0]!.events.at(-1)!.runEvents).toMatchObject({ kind: 'TERMINAL', outcome: 'DONE' });
    // the tokens are read once (one batch at the first event), then answered from memory for
    // every later event: not a read per subscriber and event (2 statements per frame before),
    // nor one per event
    const tokenReads = (sent: string[]) => sent.filter((q) => /FROM "?api_token"?/i.test(q)).length;
    expect(tokenReads(forty.sent)).toBeLessThanOrEqual(2);
    expect(forty.progress[0]!.events.length).toBeGreaterThan(10);
    expect(forty.sent.length).toBeLessThanOrEqual(two.sent.length + 3);
  });

  it('inboxChanged reads the database once per event, not once per subscriber', async () => {
    const open = async () =>
      Number(
        /^countersign_open_subscriptions (\d+)/m.exec(
          await (await fetch(t.url.replace(/\/graphql$/, '/metrics'))).text(),
        )?.[1] ?? 0,
      );
    const viewers = async (n: number) => {
      const tokens = await tokensOf('admin', n);
      const before = await open();
      const streams = tokens.map((token) => collect<Record<string, unknown>>(t.ws(token), INBOX_CHANGED, {}));
      // why: every subscription open on the server (its token checked) before the count starts,
      // however loaded the machine; then a short settle for the bus subscriptions behind them.
      await until(async () => (await open()) >= before + n, 20_000, `${n} open subscriptions`);
      await new Promise((r) => setTimeout(r, 500));
      let runId = '';
      const sent = await statements(t.dataSource, async () => {
        runId = (
          await startRun(t, 'alice', { configurationId: reads, prompt: 'Go', subjectPageId: ids.pages.Home })
        ).id;
        await until(() => streams.every((s) => s.events.length >= 1), 20_000, 'every ADDED');
      });
      for (const s of streams) s.unsubscribe();
      expect(streams.every((s) => JSON.stringify(s.events[0]).includes(runId))).toBe(true);
      await decide(t, 'deny', 'alice', { runId, turnDigest: await digestOf(t, runId) });
      return sent.length;
    };
    const one = await viewers(1);
    const thirty = await viewers(30);
    expect(thirty).toBeLessThanOrEqual(one + 3);
  });

  // why: PostgreSQL only: with the embedded database nobody but the server writes while it runs.
  itOnPostgres(
    'a token revoked in the database (no API call) closes its connection at once: no more of the trace',
    async () => {
      const { token, tokenId } = await createToken(t, ids.users.admin!, 'cli');
      const runId = await waiting(twoPauses, 'Products');
      const trace = collect<TraceFrame>(t.ws(token), RUN_EVENTS, { runId, after: 0 });
      const waits = () => trace.events.filter((e) => e.runEvents.kind === 'WAITING').length;
      await until(() => waits() === 1, 10_000, 'the first WAITING');
      receiptOf(await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) }));
      await until(() => waits() === 2, 10_000, 'the second WAITING (the authorisation is cached now)');
      const seen = trace.events.length;
      await t.dataSource.query('UPDATE api_token SET revoked_at = now() WHERE id = $1', [tokenId]);
      // why: the trigger's NOTIFY makes the instance re-check the open connections' tokens: the
      // stream ends before any further event, with the connection (4401).
      await trace.done;
      receiptOf(await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) }));
      expect(trace.events).toHaveLength(seen);
      expect(refusalsIn(trace.errors)).toEqual(['close 4401']);
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
    },
  );

  it('a client that stops reading is closed with 4413 without holding back the others, and resumes after its last sequence', async () => {
    await t.dataSource.query(
      'UPDATE page_text SET body = $2 WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0',
      [ids.pages.Widget, 'A long page. '.repeat(20_000)],
    );
    const bulk = await upsertConfiguration(t, {
      identifier: 'scale-bulk',
      privacyLevel: 'FULL',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Bulk' } }] },
          ...Array.from({ length: 10 }, () => ({ toolCalls: [{ name: 'pages_read', arguments: {} }] })),
          { text: 'Read ten times.' },
        ],
      },
    });
    const runId = await waiting(bulk, 'Widget');
    // the slow client: one connection, many traces of the run, and then it stops reading
    const slow = new WebSocket(t.wsUrl, 'graphql-transport-ws');
    const last = new Map<string, number>();
    let frames = 0;
    slow.on('message', (data: Buffer) => {
      const m = JSON.parse(String(data)) as { id?: string; type: string; payload?: { data?: TraceFrame } };
      if (m.type !== 'next' || !m.id) return;
      frames++;
      const step = m.payload?.data?.runEvents.step;
      if (step) last.set(m.id, step.sequence);
    });
    const closed = new Promise<number>((r) => slow.once('close', (code: number) => r(code)));
    await new Promise((r) => slow.once('open', r));
    slow.send(
      JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${t.tokens.admin}` } }),
    );
    await new Promise((r) => slow.once('message', r)); // connection_ack
    const subscriptions = 40;
    for (let i = 0; i < subscriptions; i++) {
      slow.send(
        JSON.stringify({
          id: `s${i}`,
          type: 'subscribe',
          payload: { query: RUN_EVENTS, variables: { runId, after: 0 } },
        }),
      );
    }
    await until(() => frames >= subscriptions, 10_000, 'the slow client’s first frames');
    (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();

    const normal = collect<TraceFrame>(t.ws('admin'), RUN_EVENTS, { runId, after: 0 });
    await until(() => normal.events.length >= 1, 10_000, 'the normal subscriber’s first frame');
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    // the others are not held back: the whole trace arrives while the slow client still sleeps
    await normal.done;
    expect(normal.errors).toEqual([]);
    expect(normal.events.at(-1)!.runEvents).toMatchObject({ kind: 'TERMINAL', outcome: 'DONE' });
    const all = normal.events
      .filter((e) => e.runEvents.kind === 'STEP')
      .map((e) => e.runEvents.step!.sequence);

    (slow as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(4413);
    const metrics = await (await fetch(t.url.replace(/\/graphql$/, '/metrics'))).text();
    expect(metrics).toMatch(/^countersign_slow_client_closes_total 1$/m);
    // it resumes from the last sequence it saw: every later step once, no gap, no duplicate
    const seen = last.get('s0') ?? 0;
    expect(seen).toBeLessThan(all.at(-1)!);
    const again = collect<TraceFrame>(t.ws('admin'), RUN_EVENTS, { runId, after: seen });
    await again.done;
    const resumed = again.events
      .filter((e) => e.runEvents.kind === 'STEP')
      .map((e) => e.runEvents.step!.sequence);
    expect(resumed).toEqual(all.filter((s) => s > seen));
    expect(again.events.at(-1)!.runEvents.kind).toBe('TERMINAL');
  });

  it('pings every WS_KEEPALIVE_SECONDS at the protocol level, and the connection survives', async () => {
    const app = await bootTestApp({ WORKER_ENABLED: 'false', WS_KEEPALIVE_SECONDS: '1' });
    try {
      const socket = new WebSocket(app.wsUrl, 'graphql-transport-ws');
      const pings: number[] = [];
      socket.on('ping', () => pings.push(Date.now()));
      await new Promise((r) => socket.once('open', r));
      socket.send(
        JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${app.tokens.bob}` } }),
      );
      await new Promise((r) => setTimeout(r, 3_300));
      expect(pings.length).toBeGreaterThanOrEqual(2);
      expect(socket.readyState).toBe(WebSocket.OPEN);
      socket.close();
    } finally {
      await app.close();
    }
  });
});
