// The transport's own limits (docs/security.md): WebSocket frame size and the time to
// connection_init, connections per user and operations per connection, failed authentications
// per address, a revoked token's connections, introspection off over graphql-ws, and the
// headers of the HTTP answers (GraphiQL, 401, no X-Powered-By, no source maps).
import type { INestApplication } from '@nestjs/common';
import { IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createApp } from '../../src/bootstrap';
import { createToken } from '../support/decisions';
import { itOnPostgresAndRedis, redisUrl } from '../support/processes';
import { usingPostgres } from '../support/test-env';
import { collect, demoIds, until } from '../support/runs';
import { StatementLog } from '../support/statement-log';
import type { Client as WsClient } from 'graphql-ws';
import { bootTestApp, errorCode, GqlResponse, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

/** One operation over graphql-ws: the `next` result, or the `error` payload as errors. */
function overWs(client: WsClient, query: string): Promise<GqlResponse> {
  return new Promise((resolve) => {
    let result: GqlResponse = { status: 0 };
    client.subscribe(
      { query },
      {
        next: (r) => (result = { status: 0, ...(r as Omit<GqlResponse, 'status'>) }),
        error: (e) => resolve({ status: -1, errors: Array.isArray(e) ? (e as GqlResponse['errors']) : [] }),
        complete: () => resolve(result),
      },
    );
  });
}

/** A raw graphql-transport-ws socket: when it closes, and with what code. */
function rawSocket(
  url: string,
  localAddress?: string,
): { socket: WebSocket; closed: Promise<{ code: number; reason: string }> } {
  const socket = new WebSocket(url, 'graphql-transport-ws', localAddress ? { localAddress } : {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    socket.on('error', () => undefined);
  });
  return { socket, closed };
}

const opened = (socket: WebSocket): Promise<void> =>
  new Promise((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });

/** Sends connection_init with a token and resolves with the first message (ack) or the close. */
async function connect(
  url: string,
  token: string,
  localAddress?: string,
): Promise<{ socket: WebSocket; first: Promise<string> }> {
  const { socket, closed } = rawSocket(url, localAddress);
  await opened(socket);
  const first = Promise.race([
    new Promise<string>((resolve) => socket.once('message', (m: Buffer) => resolve(m.toString()))),
    closed.then((c) => `closed ${c.code} ${c.reason}`),
  ]);
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
  return { socket, first };
}

/**
 * A loopback address of a test's own: failures of other test files (which share Redis when
 * REDIS_URL is set) do not count against it, and its failures count nowhere else.
 */
const ownAddress = (): string =>
  `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;

/** A POST to /graphql from a given local address (any 127.x.y.z is this machine). */
function postFrom(
  url: string,
  localAddress: string,
  authorization: string,
  query: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: GqlResponse }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', authorization } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: { status: res.statusCode ?? 0, ...(JSON.parse(text) as object) },
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

const INBOX_CHANGED = 'subscription { inboxChanged { run { id } } }';

describe('transport limits', () => {
  const { t } = useTestApp({
    WS_CONNECTION_INIT_TIMEOUT_SECONDS: '1',
    WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: '2',
    WS_MAX_CONNECTIONS_PER_USER: '2',
    AUTH_FAILURES_PER_MINUTE: '3',
  });
  let base: string;
  beforeAll(() => {
    base = t.url.replace(/\/graphql$/, '');
  });

  it('closes a socket that sends a 2 MiB frame (1009) and keeps answering /health at once', async () => {
    const { socket, closed } = rawSocket(t.wsUrl);
    await opened(socket);
    socket.send('x'.repeat(2 * 1024 * 1024));
    expect((await closed).code).toBe(1009);
    const started = Date.now();
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    const ok = await overWs(t.ws('admin'), '{ viewer { user { username } } }');
    expect(ok.data).toEqual({ viewer: { user: { username: 'admin' } } });
  });

  it('closes a socket that never sends connection_init (4408)', async () => {
    const { socket, closed } = rawSocket(t.wsUrl);
    await opened(socket);
    const started = Date.now();
    expect((await closed).code).toBe(4408);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('refuses a third operation at once on one connection with RATE_LIMITED', async () => {
    const client = t.ws('carol');
    const a = collect(client, INBOX_CHANGED, {});
    const b = collect(client, INBOX_CHANGED, {});
    const third = collect(client, INBOX_CHANGED, {});
    await third.done;
    expect(JSON.stringify(third.errors)).toMatch(/"code":"RATE_LIMITED"/);
    expect(third.events).toEqual([]);
    a.unsubscribe();
    await until(async () => {
      const again = await overWs(client, '{ viewer { user { username } } }');
      return again.data !== undefined;
    });
    b.unsubscribe();
  });

  it('closes a third connection of one user (4429) and lets another user connect', async () => {
    const first = await connect(t.wsUrl, t.tokens.dave!);
    const second = await connect(t.wsUrl, t.tokens.dave!);
    expect(await first.first).toContain('connection_ack');
    expect(await second.first).toContain('connection_ack');
    const third = await connect(t.wsUrl, t.tokens.dave!);
    expect(await third.first).toMatch(/^closed 4429 RATE_LIMITED/);
    const other = await connect(t.wsUrl, t.tokens.erin!);
    expect(await other.first).toContain('connection_ack');
    // a closed connection frees its place
    first.socket.close();
    await until(async () => {
      const next = await connect(t.wsUrl, t.tokens.dave!);
      const ack = (await next.first).includes('connection_ack');
      if (ack) next.socket.close();
      return ack;
    });
    for (const s of [second.socket, other.socket]) s.close();
  });

  it('ends the streams of a revoked token at once, before any next event', async () => {
    const ids = await demoIds(t);
    const second = await createToken(t, ids.users.alice!, 'alice');
    const stream = collect(t.ws(second.token), INBOX_CHANGED, {});
    await until(async () => (await overWs(t.ws(second.token), '{ viewer { grants } }')).data !== undefined);
    await new Promise((r) => setTimeout(r, 200));
    const revoked = await t.gql(
      'mutation ($id: ID!) { revokeApiToken(tokenId: $id) }',
      { id: second.tokenId },
      'alice',
    );
    expect(revoked.data).toEqual({ revokeApiToken: true });
    const started = Date.now();
    await stream.done;
    expect(Date.now() - started).toBeLessThan(2000);
    expect((stream.errors[0] as { code?: number }).code).toBe(4401);
    expect(stream.events).toEqual([]);
  });
});

describe('failed authentications per address (AUTH_FAILURES_PER_MINUTE=3)', () => {
  const { t } = useTestApp({ AUTH_FAILURES_PER_MINUTE: '3' });

  it('answers 401 with WWW-Authenticate: Bearer, then 429 RATE_LIMITED, valid tokens included', async () => {
    const address = ownAddress();
    const wrong = `Bearer cs_${'A'.repeat(43)}`;
    for (let i = 0; i < 3; i++) {
      const res = await postFrom(t.url, address, wrong, '{ __typename }');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(errorCode(res.body)).toBe('UNAUTHENTICATED');
    }
    const log = StatementLog.open();
    const limited = await postFrom(
      t.url,
      address,
      `Bearer ${t.tokens.admin}`,
      '{ viewer { grants } }',
    ).finally(() => log.close());
    expect(limited.status).toBe(429);
    // why: a blocked address's token is not even looked up (early-token-check.ts, graphqlContext).
    expect(log.statements.filter((s) => /\bFROM api_token\b/.test(s.text))).toEqual([]);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(errorCode(limited.body)).toBe('RATE_LIMITED');
    expect(limited.body.data ?? null).toBeNull();
    const ws = await connect(t.wsUrl, t.tokens.admin!, address);
    expect(await ws.first).toMatch(/^closed 4429 RATE_LIMITED/);
    // another address is not limited, and a request without a token is not a failure
    const other = await t.gql<{ viewer: { grants: string[] } }>('{ viewer { grants } }', {}, 'admin');
    expect(other.errors).toBeUndefined();
    expect((await fetch(t.url.replace(/\/graphql$/, '/health'))).status).toBe(200);
  });

  it('counts failed connection_init the same way (4401, then 4429)', async () => {
    const address = ownAddress();
    for (let i = 0; i < 3; i++) {
      const refused = await connect(t.wsUrl, `cs_${'B'.repeat(43)}`, address);
      expect(await refused.first).toMatch(/^closed 4401/);
    }
    const limited = await connect(t.wsUrl, t.tokens.admin!, address);
    expect(await limited.first).toMatch(/^closed 4429 RATE_LIMITED/);
    const http = await postFrom(t.url, address, `Bearer ${t.tokens.admin}`, '{ __typename }');
    expect(http.status).toBe(429);
  });
});

describe('with GRAPHQL_INTROSPECTION=false, over both transports', () => {
  const { t } = useTestApp({ GRAPHQL_INTROSPECTION: 'false' });

  it('refuses __schema and __type with GRAPHQL_VALIDATION_FAILED over HTTP and graphql-ws', async () => {
    const client = t.ws('admin');
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Run") { name } }']) {
      const http = await t.gql(query);
      expect({ query, code: errorCode(http), data: http.data ?? null }).toEqual({
        query,
        code: 'GRAPHQL_VALIDATION_FAILED',
        data: null,
      });
      const ws = await overWs(client, query);
      expect({ query, code: errorCode(ws), data: ws.data ?? null }).toEqual({
        query,
        code: 'GRAPHQL_VALIDATION_FAILED',
        data: null,
      });
    }
    const ok = await overWs(client, '{ viewer { user { username } } }');
    expect(ok.data).toEqual({ viewer: { user: { username: 'admin' } } });
  });
});

describe('across two instances on one database and one Redis', () => {
  let t: TestApp | null = null;
  let second: INestApplication | null = null;
  let secondUrl = '';
  beforeAll(async () => {
    if (!usingPostgres() || !redisUrl()) return;
    t = await bootTestApp({
      REDIS_URL: redisUrl()!,
      RATE_LIMIT_PER_MINUTE: '5',
      AUTH_FAILURES_PER_MINUTE: '3',
      WS_MAX_CONNECTIONS_PER_USER: '2',
    });
    second = await createApp(t.config, t.db.target);
    await second.listen(0, '127.0.0.1');
    const { port } = (second.getHttpServer() as { address(): AddressInfo }).address();
    secondUrl = `http://127.0.0.1:${port}/graphql`;
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  itOnPostgresAndRedis('one budget per user over both (RATE_LIMIT_PER_MINUTE counted in Redis)', async () => {
    const viewer = '{ viewer { user { username } } }';
    const address = ownAddress();
    for (const url of [t!.url, secondUrl, t!.url, secondUrl, t!.url]) {
      const ok = await postFrom(url, address, `Bearer ${t!.tokens.bob}`, viewer);
      expect(ok.body.errors).toBeUndefined();
    }
    const refused = await postFrom(secondUrl, address, `Bearer ${t!.tokens.bob}`, viewer);
    expect(errorCode(refused.body)).toBe('RATE_LIMITED');
    const other = await postFrom(secondUrl, address, `Bearer ${t!.tokens.carol}`, viewer);
    expect(other.body.errors).toBeUndefined();
  });

  itOnPostgresAndRedis('failed authentications add up over both instances', async () => {
    const address = ownAddress();
    const wrong = `Bearer cs_${'C'.repeat(43)}`;
    expect((await postFrom(t!.url, address, wrong, '{ __typename }')).status).toBe(401);
    expect((await postFrom(t!.url, address, wrong, '{ __typename }')).status).toBe(401);
    // the second instance sees its first failure from this address, and the two before it
    expect((await postFrom(secondUrl, address, wrong, '{ __typename }')).status).toBe(401);
    const limited = await postFrom(secondUrl, address, `Bearer ${t!.tokens.admin}`, '{ __typename }');
    expect(limited.status).toBe(429);
    expect(errorCode(limited.body)).toBe('RATE_LIMITED');
  });

  itOnPostgresAndRedis(
    'a token revoked on one instance closes its connections on the other at once',
    async () => {
      const ids = await demoIds(t!);
      const token = await createToken(t!, ids.users.erin!, 'erin');
      const onSecond = await connect(secondUrl.replace(/^http/, 'ws'), token.token);
      expect(await onSecond.first).toContain('connection_ack');
      const closed = new Promise<number>((resolve) => onSecond.socket.once('close', (code) => resolve(code)));
      const revoked = await t!.gql(
        'mutation ($id: ID!) { revokeApiToken(tokenId: $id) }',
        { id: token.tokenId },
        'erin',
      );
      expect(revoked.data).toEqual({ revokeApiToken: true });
      const started = Date.now();
      expect(await closed).toBe(4401);
      expect(Date.now() - started).toBeLessThan(2000);
    },
  );

  itOnPostgresAndRedis(
    'caps a user’s connections over both instances (4429), and frees a closed one’s place',
    async () => {
      const wsA = t!.wsUrl;
      const wsB = secondUrl.replace(/^http/, 'ws');
      const first = await connect(wsA, t!.tokens.dave!);
      const second = await connect(wsB, t!.tokens.dave!);
      expect(await first.first).toContain('connection_ack');
      expect(await second.first).toContain('connection_ack');
      // each instance holds one of dave's connections: the cap counts both
      const third = await connect(wsA, t!.tokens.dave!);
      expect(await third.first).toMatch(/^closed 4429 RATE_LIMITED/);
      second.socket.close();
      await until(async () => {
        const next = await connect(wsA, t!.tokens.dave!);
        const ack = (await next.first).includes('connection_ack');
        if (ack) next.socket.close();
        return ack;
      });
      first.socket.close();
    },
  );
});
