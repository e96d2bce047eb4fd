import { Logger } from '@nestjs/common';
import { createClient, Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startResting } from '../support/decisions';
import { collect, demoIds, until } from '../support/runs';
import { TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

const LISTED = 'http://localhost:5173';
const FOREIGN = 'https://evil.example';

/** A graphql-ws client whose handshake carries the given Origin, as a browser's does. */
function wsFrom(t: TestApp, origin: string, as = 'bob'): Client {
  class OriginWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { origin } });
    }
  }
  return createClient({
    url: t.wsUrl,
    webSocketImpl: OriginWebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: { authorization: `Bearer ${t.tokens[as]}` },
  });
}

/**
 * CORS_ORIGINS limits other origins, never the server's own pages (/app, /graphiql): their
 * WebSocket and HTTP requests from the server's own origin pass; a refused origin is logged.
 */
describe("CORS_ORIGINS and the server's own origin", () => {
  const clients: Client[] = [];
  const { t } = useTestApp(
    { CORS_ORIGINS: LISTED },
    {
      beforeClose: async () => {
        for (const c of clients) await c.dispose();
      },
    },
  );
  let own: string;
  const warn = jest.spyOn(Logger.prototype, 'warn');

  beforeAll(() => {
    own = new URL(t.url).origin;
  });
  afterAll(() => warn.mockRestore());
  beforeEach(() => warn.mockClear());

  const warnedAbout = (origin: string): boolean =>
    warn.mock.calls.some((call) => JSON.stringify(call).includes(origin));

  it("a WebSocket from the server's own origin connects and streams inboxChanged (the /app inbox)", async () => {
    const client = wsFrom(t, own);
    clients.push(client);
    const stream = collect<{ inboxChanged: { run: { id: string } } }>(
      client,
      'subscription { inboxChanged { run { id } } }',
      {},
    );
    // why: the subscription must be active before the run starts waiting (docs/stack-notes.md).
    await new Promise((r) => setTimeout(r, 300));
    const ids = await demoIds(t);
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages.About,
    });
    await until(() => stream.events.some((e) => e.inboxChanged.run.id === runId), 10_000, 'inboxChanged');
    expect(stream.errors).toEqual([]);
    stream.unsubscribe();
    expect(warnedAbout(own)).toBe(false);
  });

  it('a listed origin connects too', async () => {
    const client = wsFrom(t, LISTED);
    clients.push(client);
    const res = await new Promise<unknown>((resolve, reject) =>
      client.subscribe(
        { query: '{ viewer { user { username } } }' },
        { next: resolve, error: reject, complete: () => undefined },
      ),
    );
    expect(res).toEqual({ data: { viewer: { user: { username: 'bob' } } } });
  });

  it('a foreign origin is closed with 4403 and logged as a warning naming the origin', async () => {
    const client = wsFrom(t, FOREIGN);
    clients.push(client);
    const error = await new Promise<unknown>((resolve) =>
      client.subscribe(
        { query: '{ viewer { user { username } } }' },
        { next: () => undefined, error: resolve, complete: () => resolve(null) },
      ),
    );
    expect((error as { code?: number }).code).toBe(4403);
    expect(warnedAbout(FOREIGN)).toBe(true);
  });

  it("HTTP: a preflight from the server's own origin or a listed one is allowed; a foreign one gets no CORS headers and is logged", async () => {
    const preflight = (origin: string) =>
      fetch(t.url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,authorization',
        },
      });
    expect((await preflight(own)).headers.get('access-control-allow-origin')).toBe(own);
    expect((await preflight(LISTED)).headers.get('access-control-allow-origin')).toBe(LISTED);
    expect(warnedAbout(own)).toBe(false);
    expect((await preflight(FOREIGN)).headers.get('access-control-allow-origin')).toBeNull();
    expect(warnedAbout(FOREIGN)).toBe(true);
    // a same-origin request of the page itself is answered as usual
    const res = await fetch(t.url, {
      method: 'POST',
      headers: { origin: own, 'content-type': 'application/json', authorization: `Bearer ${t.tokens.bob}` },
      body: JSON.stringify({ query: '{ viewer { user { username } } }' }),
    });
    expect(res.headers.get('access-control-allow-origin')).toBe(own);
    expect(await res.json()).toEqual({ data: { viewer: { user: { username: 'bob' } } } });
  });
});
