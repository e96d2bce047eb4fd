import { request } from 'node:http';
import { StatementLog } from '../support/statement-log';
import { until } from '../support/runs';
import { bootTestApp, TestApp } from '../support/test-app';

const TOKEN_LOOKUP = /\bFROM api_token t JOIN app_user u\b/;

/**
 * The bearer token of a GraphQL request over HTTP is checked as the request arrives
 * (early-token-check.ts): its lookup is on its way to the database while the body is still
 * coming in, and the GraphQL context awaits that same lookup instead of sending a second one.
 */
describe('the token check starts as the request arrives', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A POST whose body is held back after its first half until `release` is called. */
  function heldBack(authorization: string, body: string) {
    let release!: () => void;
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        t.url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      const half = Math.floor(body.length / 2);
      req.write(body.slice(0, half));
      release = () => req.end(body.slice(half));
    });
    return { answer, release: () => release() };
  }

  it('looks the token up before the body has arrived, once, and answers as its user', async () => {
    const log = StatementLog.open();
    try {
      const { answer, release } = heldBack(
        `Bearer ${t.tokens.bob}`,
        JSON.stringify({ query: '{ viewer { user { username } } }' }),
      );
      // why: the body is incomplete, so nothing after the body parser can have run yet.
      await until(() => log.statements.some((s) => TOKEN_LOOKUP.test(s.text)), 5_000, 'the token lookup');
      release();
      const res = await answer;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual({ data: { viewer: { user: { username: 'bob' } } } });
      expect(log.statements.filter((s) => TOKEN_LOOKUP.test(s.text))).toHaveLength(1);
    } finally {
      log.close();
    }
  });

  it('a token refused early is refused in the context: 401 UNAUTHENTICATED, nothing run', async () => {
    const log = StatementLog.open();
    try {
      const { answer, release } = heldBack(
        `Bearer cs_${'C'.repeat(43)}`,
        JSON.stringify({ query: 'mutation { revokeApiTokens(userId: "1") }' }),
      );
      await until(() => log.statements.some((s) => TOKEN_LOOKUP.test(s.text)), 5_000, 'the token lookup');
      release();
      const res = await answer;
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text).errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(log.statements.filter((s) => TOKEN_LOOKUP.test(s.text))).toHaveLength(1);
      expect(log.statements.filter((s) => /^UPDATE api_token SET revoked_at/.test(s.text))).toEqual([]);
    } finally {
      log.close();
    }
  });

  it('a request that never reaches GraphQL (a malformed body) is answered, and the server stays up', async () => {
    const { answer, release } = heldBack(`Bearer ${t.tokens.bob}`, '{"query": "{ viewer { id } }"');
    release();
    expect((await answer).status).toBe(400);
    const after = await t.gql<{ viewer: { user: { username: string } } }>(
      '{ viewer { user { username } } }',
      {},
      'bob',
    );
    expect(after.data?.viewer.user.username).toBe('bob');
  });
});
