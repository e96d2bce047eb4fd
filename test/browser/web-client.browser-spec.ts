import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootTestApp, TestApp } from '../support/test-app';
import { appUrl } from './support/browser';

/** The server side of the client: /app serves the build (no browser needed). */
describe('web client at /app', () => {
  let t: TestApp;
  const built = (): string => readFileSync(join(__dirname, '..', '..', 'dist', 'web', 'index.html'), 'utf8');

  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers index.html for the client routes, without a token, with a same-origin CSP', async () => {
    for (const path of ['/app', '/app/', '/app/chat', '/app/chat?conversation=1']) {
      const res = await fetch(appUrl(t.url, path));
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      expect(await res.text()).toBe(built());
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('serves the hashed scripts and styles the page names, from this origin only', async () => {
    const assets = [...built().matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/app\/assets\//);
      const res = await fetch(appUrl(t.url, asset));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
      expect(res.headers.get('content-type')).toMatch(
        /^(text\/javascript|application\/javascript|text\/css)/,
      );
      expect((await res.text()).length).toBeGreaterThan(100);
    }
  });

  it('answers a coded 404 for missing files and paths outside the build', async () => {
    for (const path of [
      '/app/assets/missing.js',
      '/app/..%2f..%2fpackage.json',
      '/app/assets/..%2f..%2f..%2fpackage.json',
    ]) {
      const res = await fetch(appUrl(t.url, path));
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      const body = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
      expect(body.errors[0]!.extensions.code).toBe('NOT_FOUND');
    }
  });

  it('leaves the API alone: POST /graphql still answers', async () => {
    const res = await t.gql<{ viewer: { user: { username: string } } }>(
      '{ viewer { user { username } } }',
      {},
      'bob',
    );
    expect(res.data?.viewer.user.username).toBe('bob');
  });
});
