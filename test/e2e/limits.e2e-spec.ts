// GraphQL hardening (docs/security.md): armor's limits over HTTP and graphql-ws, batching
// off, CSRF prevention, the 1 MB body limit, input coercion errors, no stack traces, field
// suggestions stripped in production. Every refusal is a client error, never a 500.
import type { Client as WsClient } from 'graphql-ws';
import { nestedQuery, overWs, PARSE, VALIDATION } from '../support/graphql-limits';
import { errorCode, GqlResponse } from '../support/test-app';
import { useTestApp } from '../support/suite';

/** A document within the depth, alias and token limits whose cost is above 5000. */
const COSTLY_QUERY = (() => {
  let inner = 'name';
  for (let i = 0; i < 7; i++) inner = `${'...T '.repeat(10)}ofType { ${inner} }`;
  return `query Costly { __type(name: "Query") { ${inner} } }
    fragment T on __Type { name kind description specifiedByURL }`;
})();

/** The outside probe: nested pages whose sizes hide in variables (200 × 500 step payloads). */
const PAGED_PROBE = `query Probe($a: Int, $b: Int) {
  runs(first: $a) { nodes { steps(first: $b) { nodes { payload } } } }
}`;
/** The same without any `first`: the schema's defaults (50 × 100) still multiply. */
const DEFAULT_PAGED = '{ runs { nodes { steps { nodes { payload } } } } }';
/** 15 aliases of the probe, within every armor limit. */
const ALIASED_PROBE = `query Aliased($a: Int, $b: Int) { ${Array.from(
  { length: 15 },
  (_, i) => `r${i}: runs(first: $a) { nodes { steps(first: $b) { nodes { payload } } } }`,
).join(' ')} }`;
/** What clients ask for every day: pages with small nested pages stay under the limit. */
const ORDINARY: Array<[string, Record<string, unknown>]> = [
  [
    'query ($n: Int) { runs(first: $n) { totalCount nodes { id status steps(first: 20) { nodes { kind } } } } }',
    { n: 20 },
  ],
  ['{ runs(first: 200) { totalCount nodes { id owner { username } } } }', {}],
  ['{ inbox { run { id pending { turnDigest calls { toolName preview } } } } }', {}],
];

const aliased = (n: number): string =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { grants }`).join(' ')} }`;

interface RawResponse {
  status: number;
  contentType: string | null;
  body: GqlResponse;
}

describe('GraphQL limits', () => {
  const { t } = useTestApp();

  async function post(body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    const res = await fetch(t.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // why: a client that prefers application/graphql-response+json gets the 4xx statuses.
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${t.tokens.admin}`,
        ...headers,
      },
      body,
    });
    const text = await res.text();
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: JSON.parse(text) as GqlResponse,
    };
  }
  const query = (q: string, variables?: Record<string, unknown>): Promise<RawResponse> =>
    post(JSON.stringify({ query: q, variables }));

  function expectRefused(res: RawResponse, message?: RegExp, code = 'BAD_USER_INPUT'): void {
    expect(res.status).not.toBe(500);
    expect(res.status).toBe(400);
    expect(res.body.data ?? null).toBeNull();
    expect(errorCode(res.body)).toBe(code);
    if (message) expect(res.body.errors?.map((e) => e.message).join('\n')).toMatch(message);
  }

  describe('over HTTP', () => {
    it('refuses a document nested deeper than 10, and accepts depth 10', async () => {
      expectRefused(await query(nestedQuery(11)), /^Query depth limit of 10 exceeded, found 11/, VALIDATION);
      const ok = await query(nestedQuery(10));
      expect(ok.status).toBe(200);
      expect(ok.body.errors).toBeUndefined();
    });

    it('refuses 16 aliases, and accepts 15', async () => {
      expectRefused(await query(aliased(16)), /Aliases limit of 15 exceeded, found 16/, VALIDATION);
      const ok = await query(aliased(15));
      expect(ok.status).toBe(200);
      expect(Object.keys(ok.body.data ?? {})).toHaveLength(15);
    });

    it('refuses more than 50 directives', async () => {
      const fields = Array.from({ length: 51 }, (_, i) => `f${i}: __typename @include(if: true)`).join(' ');
      expectRefused(await query(`{ ${fields} }`), /Directives limit of 50 exceeded/, VALIDATION);
    });

    it('refuses more than 2000 tokens with a 400, not a 500', async () => {
      expectRefused(await query(`{ ${'__typename '.repeat(2001)}}`), /more tha[nt] 2000 tokens/, PARSE);
    });

    it('refuses a document above the cost limit', async () => {
      expectRefused(await query(COSTLY_QUERY), /Cost limit of 5000 exceeded/, VALIDATION);
    });

    it('refuses nested pages sized by variables or by the schema defaults, before anything runs', async () => {
      for (const [doc, variables] of [
        [PAGED_PROBE, { a: 200, b: 500 }],
        [PAGED_PROBE, {}],
        [DEFAULT_PAGED, undefined],
        [ALIASED_PROBE, { a: 200, b: 500 }],
      ] as const) {
        expectRefused(await query(doc, variables), /Query cost limit of 5000 exceeded, found \d+/);
      }
    });

    it('lets ordinary paged queries through', async () => {
      for (const [doc, variables] of ORDINARY) {
        const res = await query(doc, variables);
        expect({ doc, status: res.status, errors: res.body.errors }).toEqual({
          doc,
          status: 200,
          errors: undefined,
        });
      }
    });

    it('refuses a syntax error with a 400', async () => {
      expectRefused(await query('{ viewer { '), /Syntax Error/, PARSE);
    });

    it('refuses a batched request (JSON array)', async () => {
      const res = await post(JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]));
      expectRefused(res, /batching disabled/i);
    });

    it('refuses a text/plain POST as a possible CSRF', async () => {
      const res = await post(JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'text/plain' });
      expectRefused(res, /Cross-Site Request Forgery/);
    });

    it('refuses a subscription sent over HTTP (subscriptions use graphql-ws)', async () => {
      const res = await query(
        'subscription { runEvents(runId: "00000000-0000-4000-8000-000000000000") { kind } }',
      );
      expectRefused(res);
    });

    it('refuses a 2 MB body with 413 and a JSON error', async () => {
      const res = await query('{ __typename }', { padding: 'x'.repeat(2 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(res.contentType).toMatch(/application\/json/);
      expect(errorCode(res.body)).toBe('BAD_USER_INPUT');
    });

    it('refuses malformed JSON with 400', async () => {
      expectRefused(await post('{"query": '), /Malformed request body/);
    });

    it('refuses a charset or a Content-Encoding it cannot decode with 415 and a JSON error', async () => {
      for (const [headers, message] of [
        [{ 'content-type': 'application/json; charset=latin1' }, /Unsupported charset/],
        [{ 'content-type': 'application/json; charset=koi8-r' }, /Unsupported charset/],
        [{ 'content-encoding': 'compress' }, /Unsupported Content-Encoding/],
      ] as const) {
        const res = await post(JSON.stringify({ query: '{ __typename }' }), headers);
        expect([headers, res.status, errorCode(res.body)]).toEqual([headers, 415, 'BAD_USER_INPUT']);
        expect(res.contentType).toMatch(/application\/json/);
        expect(res.body.errors?.[0]?.message).toMatch(message);
      }
      // UTF-8 named in any case is read as usual
      const utf8 = await post(JSON.stringify({ query: '{ __typename }' }), {
        'content-type': 'application/json; charset=UTF-8',
      });
      expect(utf8.body.data).toEqual({ __typename: 'Query' });
    });

    it('refuses an unknown enum value in a variable, and writes nothing', async () => {
      const before = await t.dataSource.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM configuration',
      );
      const res = await query(
        'mutation ($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }',
        {
          input: {
            identifier: 'enum-probe',
            name: 'x',
            provider: 'scripted',
            model: 'm',
            privacyLevel: 'NOPE',
          },
        },
      );
      expectRefused(res, /"NOPE" does not exist in "PrivacyLevel" enum/);
      const after = await t.dataSource.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM configuration',
      );
      expect(after[0]!.n).toBe(before[0]!.n);
    });

    it('refuses malformed variables', async () => {
      expectRefused(
        await query('query ($n: String!) { __type(name: $n) { name } }', { n: { not: 'a string' } }),
      );
      expectRefused(await post(JSON.stringify({ query: '{ __typename }', variables: 'not-an-object' })));
    });

    it('keeps field suggestions outside production and never sends stack traces', async () => {
      const res = await query('{ viewer { grant } }');
      expectRefused(res, /Did you mean "grants"\?/, VALIDATION);
      for (const e of res.body.errors ?? []) {
        expect(Object.keys(e.extensions ?? {})).toEqual(['code']);
      }
    });

    it('still answers a legit query after the refusals', async () => {
      const res = await query('{ viewer { user { username } } }');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ viewer: { user: { username: 'admin' } } });
    });
  });

  describe('over graphql-ws (same limits as HTTP)', () => {
    let client: WsClient;
    beforeAll(() => {
      client = t.ws('admin');
    });

    it('refuses an over-deep document with GRAPHQL_VALIDATION_FAILED', async () => {
      const res = await overWs(client, nestedQuery(11));
      expect(res.status).toBe(-1);
      expect(errorCode(res)).toBe(VALIDATION);
      expect(res.errors?.[0]?.message).toMatch(/depth limit of 10 exceeded/);
    });

    it('refuses an over-deep subscription document', async () => {
      const res = await overWs(client, `subscription Deep ${nestedQuery(11)}`);
      expect(errorCode(res)).toBe(VALIDATION);
      expect(res.errors?.map((e) => e.message)).toContain('Query depth limit of 10 exceeded, found 11.');
    });

    it('refuses 16 aliases, too many tokens, a costly document and a syntax error', async () => {
      const cases: Array<[string, RegExp, string]> = [
        [aliased(16), /Aliases limit of 15/, VALIDATION],
        [`{ ${'__typename '.repeat(2001)}}`, /2000 tokens/, PARSE],
        [COSTLY_QUERY, /Cost limit of 5000/, VALIDATION],
        ['{ viewer { ', /Syntax Error/, PARSE],
      ];
      for (const [doc, message, code] of cases) {
        const res = await overWs(client, doc);
        expect(errorCode(res)).toBe(code);
        expect(res.errors?.[0]?.message).toMatch(message);
      }
    });

    it('refuses nested pages sized by variables or by the schema defaults', async () => {
      for (const [doc, variables] of [
        [PAGED_PROBE, { a: 200, b: 500 }],
        [DEFAULT_PAGED, undefined],
        [ALIASED_PROBE, { a: 200, b: 500 }],
      ] as const) {
        const res = await overWs(client, doc, variables);
        expect(res.status).toBe(-1);
        expect(errorCode(res)).toBe('BAD_USER_INPUT');
        expect(res.errors?.[0]?.message).toMatch(/Query cost limit of 5000 exceeded/);
      }
      for (const [doc, variables] of ORDINARY) {
        const res = await overWs(client, doc, variables);
        expect({ doc, errors: res.errors }).toEqual({ doc, errors: undefined });
      }
    });

    it('refuses an unknown field with GRAPHQL_VALIDATION_FAILED', async () => {
      const res = await overWs(client, '{ viewer { nope } }');
      expect(errorCode(res)).toBe(VALIDATION);
    });

    it('refuses an unknown enum value in a variable with BAD_USER_INPUT', async () => {
      const res = await overWs(
        client,
        'mutation ($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }',
        {
          input: {
            identifier: 'enum-probe',
            name: 'x',
            provider: 'scripted',
            model: 'm',
            privacyLevel: 'NOPE',
          },
        },
      );
      expect(errorCode(res)).toBe('BAD_USER_INPUT');
    });

    it('still runs a legit operation on the same connection afterwards', async () => {
      const res = await overWs(client, '{ viewer { user { username } } }');
      expect(res.errors).toBeUndefined();
      expect(res.data).toEqual({ viewer: { user: { username: 'admin' } } });
    });
  });
});

describe('GraphQL limits in production', () => {
  const { t } = useTestApp({ NODE_ENV: 'production' });

  it('strips field suggestions over HTTP and graphql-ws', async () => {
    const http = await t.gql('{ viewer { grant } }');
    expect(errorCode(http)).toBe(VALIDATION);
    expect(http.errors?.[0]?.message).toBe('Cannot query field "grant" on type "Viewer".');
    const ws = await overWs(t.ws('admin'), '{ viewer { grant } }');
    expect(errorCode(ws)).toBe(VALIDATION);
    expect(ws.errors?.[0]?.message).toBe('Cannot query field "grant" on type "Viewer".');
  });
});

describe('rate limit per user (RATE_LIMIT_PER_MINUTE=5)', () => {
  const { t } = useTestApp({ RATE_LIMIT_PER_MINUTE: '5' });

  const viewer = '{ viewer { user { username } } }';

  it('answers RATE_LIMITED (retryable) after 5 operations in a minute', async () => {
    for (let i = 0; i < 5; i++) {
      const ok = await t.gql<{ viewer: { user: { username: string } } }>(viewer, {}, 'bob');
      expect(ok.errors).toBeUndefined();
      expect(ok.data?.viewer.user.username).toBe('bob');
    }
    const refused = await t.gql(viewer, {}, 'bob');
    expect(refused.status).not.toBe(500);
    expect(errorCode(refused)).toBe('RATE_LIMITED');
    expect(refused.errors?.[0]?.extensions?.retryable).toBe(true);
    expect(refused.errors?.[0]?.extensions?.retryAfterSeconds).toEqual(expect.any(Number));
  });

  it('keeps a budget per user: another user is not limited', async () => {
    const res = await t.gql<{ viewer: { user: { username: string } } }>(viewer, {}, 'carol');
    expect(res.errors).toBeUndefined();
    expect(res.data?.viewer.user.username).toBe('carol');
  });

  it('counts every aliased root field as one operation', async () => {
    const three = '{ a: viewer { grants } b: viewer { grants } c: viewer { grants } }';
    const first = await t.gql(three, {}, 'alice');
    expect(first.errors).toBeUndefined();
    const second = await t.gql(three, {}, 'alice'); // operations 4, 5 and 6
    expect(second.errors?.map((e) => e.extensions?.code)).toEqual(['RATE_LIMITED']);
  });

  it('limits operations over graphql-ws the same way', async () => {
    const client = t.ws('dave');
    for (let i = 0; i < 5; i++) {
      const ok = await overWs(client, viewer);
      expect(ok.errors).toBeUndefined();
    }
    const refused = await overWs(client, viewer);
    expect(errorCode(refused)).toBe('RATE_LIMITED');
    expect(refused.errors?.[0]?.extensions?.retryable).toBe(true);
  });

  it('checks the access rule first: refused operations do not use up the budget', async () => {
    for (let i = 0; i < 6; i++) {
      expect(errorCode(await t.gql('{ users { id } }', {}, 'erin'))).toBe('FORBIDDEN');
    }
    const res = await t.gql<{ viewer: { user: { username: string } } }>(viewer, {}, 'erin');
    expect(res.errors).toBeUndefined();
    expect(res.data?.viewer.user.username).toBe('erin');
  });

  it('authenticates before it counts: no token is still UNAUTHENTICATED (401)', async () => {
    const res = await t.gql(viewer, {}, null);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('UNAUTHENTICATED');
  });

  it('does not count HTTP routes: /health still answers', async () => {
    const res = await fetch(t.url.replace(/\/graphql$/, '/health'));
    expect(res.status).toBe(200);
  });
});
