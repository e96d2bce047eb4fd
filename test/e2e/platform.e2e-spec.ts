// The HTTP platform: the offline GraphiQL page and its assets, /health, correlation ids.
import express from 'express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { webClientHandler } from '../../src/platform/web/web-client';
import { useTestApp } from '../support/suite';

const EXPECTED_ASSETS: Record<string, RegExp> = {
  'graphiql.min.css': /^text\/css/,
  'react.production.min.js': /^application\/javascript/,
  'react-dom.production.min.js': /^application\/javascript/,
  'graphql-ws.min.js': /^application\/javascript/,
  'graphiql.min.js': /^application\/javascript/,
  'countersign-graphiql.js': /^application\/javascript/,
};

describe('the HTTP platform', () => {
  const { t } = useTestApp();
  let base: string;
  beforeAll(() => {
    base = t.url.replace(/\/graphql$/, '');
  });

  describe('GET /graphiql', () => {
    let html: string;
    beforeAll(async () => {
      const res = await fetch(`${base}/graphiql`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      html = await res.text();
    });

    it('references only assets of this server (no CDN, works offline)', () => {
      expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
      const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(refs.sort()).toEqual(
        Object.keys(EXPECTED_ASSETS)
          .map((name) => `/graphiql/assets/${name}`)
          .sort(),
      );
    });

    it('serves every asset with 200 and its content type', async () => {
      for (const [name, type] of Object.entries(EXPECTED_ASSETS)) {
        const res = await fetch(`${base}/graphiql/assets/${name}`);
        expect({ name, status: res.status }).toEqual({ name, status: 200 });
        expect(res.headers.get('content-type')).toMatch(type);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
      }
    });

    it('serves the UMD builds the page relies on', async () => {
      const graphiql = await (await fetch(`${base}/graphiql/assets/graphiql.min.js`)).text();
      expect(graphiql).toContain('.GraphiQL=');
      expect(graphiql).toContain('createFetcher');
      const ws = await (await fetch(`${base}/graphiql/assets/graphql-ws.min.js`)).text();
      expect(ws).toContain('.graphqlWs=');
    });

    it('subscribes over graphql-ws on /graphql with the token in connectionParams', async () => {
      const script = await (await fetch(`${base}/graphiql/assets/countersign-graphiql.js`)).text();
      expect(() => new Script(script)).not.toThrow(); // compiles as JavaScript
      expect(script).toContain("new URL('/graphql', window.location.href)");
      expect(script).toContain('graphqlWs.createClient(');
      expect(script).toContain('connectionParams: authorization ? { authorization: authorization } : {}');
      expect(script).toContain('GraphiQL.createFetcher(');
      // a token in GraphiQL's own Headers tab authenticates subscriptions too
      expect(script).toContain('wsClientFor(headerAuthorization(opts && opts.headers) || authorization)');
      // the token stays in this tab, like /app's
      expect(script).toContain('sessionStorage');
      expect(script).not.toContain('localStorage');
    });

    it('sends the page and its assets with a CSP that forbids framing and foreign scripts, and nosniff', async () => {
      for (const path of [
        '/graphiql',
        '/graphiql/assets/countersign-graphiql.js',
        '/graphiql/assets/nope.js',
      ]) {
        const res = await fetch(`${base}${path}`);
        const csp = res.headers.get('content-security-policy') ?? '';
        expect({ path, csp }).toEqual({ path, csp: expect.stringContaining("frame-ancestors 'none'") });
        expect(csp).toMatch(/default-src 'self'/);
        expect(csp).toMatch(/object-src 'none'/);
        expect(csp).not.toMatch(/script-src[^;]*unsafe/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });

    it('answers 404 for an unknown asset, without a token and without a 500', async () => {
      for (const name of ['nope.js', '..%2Fpackage.json', '%2E%2E%2F%2E%2E%2Fpackage.json']) {
        const res = await fetch(`${base}/graphiql/assets/${name}`);
        expect(res.status).toBe(404);
      }
    });
  });

  describe('headers', () => {
    it('never names the framework (no X-Powered-By)', async () => {
      for (const path of ['/graphiql', '/health', '/app/', '/nope']) {
        const res = await fetch(`${base}${path}`);
        expect({ path, poweredBy: res.headers.get('x-powered-by') }).toEqual({ path, poweredBy: null });
      }
      const gql = await fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.admin}` },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(gql.headers.get('x-powered-by')).toBeNull();
    });

    it('marks every GraphQL answer over HTTP for no cache, with no ETag', async () => {
      const post = (query: string) =>
        fetch(t.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.admin}` },
          body: JSON.stringify({ query }),
        });
      for (const query of ['{ viewer { user { id } } }', '{ run(id: "not-a-uuid") { id } }', '{ nope }']) {
        const res = await post(query);
        expect({ query, cache: res.headers.get('cache-control'), etag: res.headers.get('etag') }).toEqual({
          query,
          cache: 'no-store',
          etag: null,
        });
      }
      const get = await fetch(`${t.url}?query=${encodeURIComponent('{ viewer { user { id } } }')}`, {
        headers: { authorization: `Bearer ${t.tokens.admin}`, 'apollo-require-preflight': 'true' },
      });
      expect(get.status).toBe(200);
      expect({ cache: get.headers.get('cache-control'), etag: get.headers.get('etag') }).toEqual({
        cache: 'no-store',
        etag: null,
      });
    });

    it('answers 401 with WWW-Authenticate: Bearer, with and without a token', async () => {
      for (const authorization of [undefined, 'Bearer cs_not-a-token']) {
        const res = await fetch(t.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    });
  });

  describe('correlation ids', () => {
    it('answers every request with an x-request-id, keeping a sane one the client sent', async () => {
      const fresh = await fetch(`${base}/graphiql`);
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const given = await fetch(`${base}/graphiql`, { headers: { 'x-request-id': 'client-chosen-id-1' } });
      expect(given.headers.get('x-request-id')).toBe('client-chosen-id-1');
      const insane = await fetch(`${base}/graphiql`, { headers: { 'x-request-id': 'a b' } });
      expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('GET /health', () => {
    it('answers 200 with status ok while the database answers, without a token', async () => {
      const res = await fetch(`${base}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        info: { database: { status: 'up' } },
        error: {},
        details: { database: { status: 'up' } },
      });
    });

    // Runs last in this file: it takes the database away from the app.
    it('answers 503 when the database is unreachable', async () => {
      await t.dataSource.destroy();
      const res = await fetch(`${base}/health`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; error: Record<string, { status: string }> };
      expect(body.status).toBe('error');
      expect(body.error.database?.status).toBe('down');
    });
  });
});

describe('with GRAPHQL_INTROSPECTION=false', () => {
  const { t } = useTestApp({ GRAPHQL_INTROSPECTION: 'false' });
  let base: string;
  beforeAll(() => {
    base = t.url.replace(/\/graphql$/, '');
  });

  it('has no GraphiQL page and no assets (404)', async () => {
    for (const path of [
      '/graphiql',
      '/graphiql/assets/graphiql.min.js',
      '/graphiql/assets/countersign-graphiql.js',
    ]) {
      const res = await fetch(`${base}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });

  it('refuses introspection with GRAPHQL_VALIDATION_FAILED and still answers operations', async () => {
    const refused = await t.gql('{ __schema { queryType { name } } }');
    expect(refused.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const ok = await t.gql<{ viewer: { user: { username: string } } }>('{ viewer { user { username } } }');
    expect(ok.data?.viewer.user.username).toBe('admin');
  });

  it('keeps /health', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});

describe('the web client’s source maps', () => {
  let dir: string;
  let server: Server;
  let url: (serveSourceMaps: boolean) => string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cs-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(
      join(dir, 'assets', 'index-abc.js'),
      'console.log(1);\n//# sourceMappingURL=index-abc.js.map',
    );
    writeFileSync(join(dir, 'assets', 'index-abc.js.map'), '{"version":3,"sources":["secret.ts"]}');
    const app = express();
    app.use('/prod', webClientHandler(dir, { serveSourceMaps: false }));
    app.use('/dev', webClientHandler(dir, { serveSourceMaps: true }));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    url = (maps) => `http://127.0.0.1:${port}/${maps ? 'dev' : 'prod'}/assets/index-abc.js.map`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves none in production (404), while the bundle itself is served', async () => {
    const map = await fetch(url(false));
    expect(map.status).toBe(404);
    expect(await map.text()).not.toContain('secret.ts');
    expect((await fetch(url(false).replace(/\.map$/, ''))).status).toBe(200);
  });

  it('serves them outside production (development tools)', async () => {
    const map = await fetch(url(true));
    expect(map.status).toBe(200);
    expect(await map.text()).toContain('secret.ts');
  });
});
