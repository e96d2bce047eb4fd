import { request } from 'node:http';
import { generateToken, hashToken } from '../../src/modules/auth/core/token';
import { openBurst } from '../support/burst';
import { StatementLog } from '../support/statement-log';
import { until } from '../support/runs';
import { useTestApp } from '../support/suite';

const TOKEN_LOOKUP = /\bFROM api_token t JOIN app_user u\b/;

/**
 * The bearer token of a GraphQL request over HTTP is checked as the request arrives
 * (early-token-check.ts): its lookup is on its way to the database while the body is still
 * coming in, and the GraphQL context awaits that same lookup instead of sending a second one.
 */
describe('the token check starts as the request arrives', () => {
  const { t } = useTestApp();

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

  it('requests arriving together share a lookup after the first one, and each answers as its own token', async () => {
    const [dave] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM app_user WHERE username = 'dave'`,
    );
    const revoked = generateToken();
    await t.dataSource.query(
      `INSERT INTO api_token (user_id, token_hash, label, revoked_at) VALUES ($1, $2, 'gone', now())`,
      [dave!.id, hashToken(revoked)],
    );
    const tokens = [...Array<string>(14).fill(t.tokens.bob!), t.tokens.alice!, revoked];
    const opened = await openBurst(t.url, tokens.length, t.tokens.bob!);
    const log = StatementLog.open();
    let answers;
    try {
      answers = await opened.send(
        tokens.map((token) => ({ query: '{ viewer { user { username } } }', token })),
      );
    } finally {
      log.close();
      opened.close();
    }
    // why: the first request's lookup goes at once, the fifteen that arrived with it share one.
    const lookups = log.statements.filter((s) => TOKEN_LOOKUP.test(s.text)).map((s) => s.text);
    expect(lookups).toHaveLength(2);
    expect(lookups[0]).toMatch(/WHERE t\.token_hash = \$1$/);
    expect(lookups[1]).toMatch(/WHERE t\.token_hash = ANY\(\$1::bpchar\[\]\)$/);
    const users = answers.map((a) =>
      a.status === 200
        ? (a.body.data!.viewer as { user: { username: string } }).user.username
        : a.body.errors![0]!.extensions!.code,
    );
    expect(users).toEqual([...Array<string>(14).fill('bob'), 'alice', 'UNAUTHENTICATED']);
    expect(answers[15]!.status).toBe(401);
  });
});
