import { auditServer } from 'graphql-http';
import { collect } from '../support/runs';
import { useTestApp } from '../support/suite';

const DEEP = `{ sites { rootPage { ${'children { '.repeat(10)} id ${'} '.repeat(12)} }`;

/**
 * Errors where clients look for them (issue 16): the GraphQL-over-HTTP audit suite of
 * graphql-http against the running app, Apollo's parse / validation codes over HTTP and
 * graphql-ws, and status codes by the accepted media type.
 */
describe('GraphQL over HTTP: audits, error codes and statuses', () => {
  const { t } = useTestApp();

  const post = async (body: unknown, accept?: string) => {
    const res = await fetch(t.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${t.tokens.alice}`,
        ...(accept ? { accept } : {}),
      },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as {
      errors?: Array<{ message: string; extensions?: { code?: string } }>;
    };
    return { status: res.status, type: res.headers.get('content-type'), errors: json.errors ?? [] };
  };

  it('graphql-http serverAudits: every MUST passes and no SHOULD is left as a warning', async () => {
    // why: every operation needs a token; the audits send none of their own.
    const fetchFn = (input: string | URL | Request, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${t.tokens.alice}`);
      return fetch(input, { ...init, headers });
    };
    const results = await auditServer({ url: t.url, fetchFn });
    const failed = (kind: string) =>
      results
        .filter((r) => r.status === kind)
        .map((r) => `${r.name}: ${(r as { reason?: string }).reason ?? ''}`);
    expect(results.filter((r) => r.name.startsWith('MUST')).length).toBeGreaterThan(10);
    expect(failed('error')).toEqual([]);
    expect(failed('warn')).toEqual([]);
  });

  it.each([
    ['a parse error', '{ viewer { ', 'GRAPHQL_PARSE_FAILED'],
    ['a validation error', '{ viewer { nope } }', 'GRAPHQL_VALIDATION_FAILED'],
  ])(
    '%s: Apollo’s code, 200 for application/json, 400 for application/graphql-response+json',
    async (_, query, code) => {
      for (const accept of [undefined, 'application/json']) {
        const res = await post({ query }, accept);
        expect({
          accept,
          status: res.status,
          type: res.type,
          codes: res.errors.map((e) => e.extensions?.code),
        }).toEqual({
          accept,
          status: 200,
          type: 'application/json; charset=utf-8',
          codes: [code],
        });
      }
      const strict = await post({ query }, 'application/graphql-response+json');
      expect({
        status: strict.status,
        type: strict.type,
        codes: strict.errors.map((e) => e.extensions?.code),
      }).toEqual({
        status: 400,
        type: 'application/graphql-response+json; charset=utf-8',
        codes: [code],
      });
    },
  );

  it('a bad variable value stays BAD_USER_INPUT', async () => {
    const res = await post(
      {
        query: 'query($id: ID!, $n: Int) { run(id: $id) { id } runs(first: $n) { totalCount } }',
        variables: { id: 'x', n: 'many' },
      },
      'application/graphql-response+json',
    );
    expect(res.status).toBe(400);
    expect(res.errors.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('the depth limit is a validation error, not a "Syntax Error"', async () => {
    const res = await post({ query: DEEP });
    expect(res.errors).toHaveLength(1);
    expect(res.errors[0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(res.errors[0]!.message).toMatch(/^Query depth limit of 10 exceeded/);
  });

  it('graphql-ws answers the same codes', async () => {
    const client = t.ws('alice');
    for (const [query, code] of [
      ['subscription { inboxChanged { ', 'GRAPHQL_PARSE_FAILED'],
      ['subscription { inboxChanged { nope } }', 'GRAPHQL_VALIDATION_FAILED'],
      [DEEP, 'GRAPHQL_VALIDATION_FAILED'],
    ] as const) {
      const stream = collect(client, query, {});
      await stream.done;
      const errors = (stream.errors[0] ?? []) as Array<{ message: string; extensions?: { code?: string } }>;
      expect({ query, codes: errors.map((e) => e.extensions?.code) }).toEqual({ query, codes: [code] });
      expect(errors[0]!.message).not.toMatch(/^Syntax Error: Query depth/);
    }
  });
});
