// why: the package's typings are ESM (.d.mts); its CommonJS build has its own .d.ts beside it.
import { createGraphiQLFetcher, formatResult } from '@graphiql/toolkit/dist/cjs/index.js';
import { createClient, type ClientOptions } from 'graphql-ws';
import { runInNewContext } from 'node:vm';
import WebSocket from 'ws';
import { startResting } from '../support/decisions';
import { demoIds, until } from '../support/runs';
import { useTestApp } from '../support/suite';

type Result = {
  data?: Record<string, unknown>;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
};
type Fetcher = (
  params: { query: string; operationName?: string | null; variables?: Record<string, unknown> },
  opts?: { headers?: Record<string, unknown> },
) =>
  | Promise<Result>
  | { subscribe(observer: { next(r: Result): void; complete?(): void }): { unsubscribe(): void } };

/**
 * GraphiQL the way admins use it (issue 16): the page's own script, as the server serves it,
 * run with GraphiQL's real fetcher (@graphiql/toolkit, what `GraphiQL.createFetcher` is) and a
 * real graphql-ws client, rendering into stubs. GraphiQL hands the fetcher the Headers tab as
 * `opts.headers`; a token there must authenticate subscriptions too, and a refused one shows a
 * coded error, never a stack trace.
 */
describe('the GraphiQL page’s fetcher', () => {
  const sockets: Array<{ dispose(): void }> = [];
  const { t } = useTestApp(
    {},
    {
      beforeClose: () => {
        for (const s of sockets) s.dispose();
      },
    },
  );
  let fetcher: Fetcher;

  beforeAll(async () => {
    const base = new URL(t.url).origin;
    const script = await (await fetch(`${base}/graphiql/assets/countersign-graphiql.js`)).text();
    const element = { addEventListener: () => undefined, textContent: '', value: '' };
    const rendered: Array<{ fetcher: Fetcher }> = [];
    runInNewContext(script, {
      window: {
        location: { href: `${base}/graphiql` },
        sessionStorage: { getItem: () => null, setItem: () => undefined, removeItem: () => undefined },
      },
      document: { getElementById: () => element },
      URL,
      React: { createElement: (_type: unknown, props: { fetcher: Fetcher }) => rendered.push(props) },
      ReactDOM: { createRoot: () => ({ render: () => undefined }) },
      // why: the toolkit finds `window.fetch` in a browser; Node's is passed the same way
      GraphiQL: {
        createFetcher: (options: Parameters<typeof createGraphiQLFetcher>[0]) =>
          createGraphiQLFetcher({ ...options, fetch }),
      },
      graphqlWs: {
        createClient: (options: ClientOptions) => {
          const client = createClient({ ...options, webSocketImpl: WebSocket });
          sockets.push(client);
          return client;
        },
      },
    });
    fetcher = rendered.at(-1)!.fetcher; // the page as opened: no token in its own field
  });

  /** Subscribes through the fetcher; resolves with the first result that satisfies `until`. */
  function firstResult(headers: Record<string, unknown>, query: string, until: (r: Result) => boolean) {
    const observable = fetcher({ query, operationName: 'Inbox' }, { headers });
    if (!('subscribe' in observable)) throw new Error('a subscription must not go over HTTP');
    const results: Result[] = [];
    let stop = (): void => undefined;
    const done = new Promise<Result>((resolve) => {
      const sub = observable.subscribe({
        next: (r) => {
          results.push(r);
          if (until(r)) resolve(r);
        },
      });
      stop = () => sub.unsubscribe();
    });
    return { done, results, stop: () => stop() };
  }

  const SUBSCRIPTION = 'subscription Inbox { inboxChanged { change run { id status } } }';

  it('Authorization in the Headers tab authenticates a subscription (graphql-ws connectionParams)', async () => {
    const ids = await demoIds(t);
    const sub = firstResult({ Authorization: `Bearer ${t.tokens.admin}` }, SUBSCRIPTION, () => false);
    await new Promise((r) => setTimeout(r, 500)); // the subscription is active first
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages.About,
    });
    await until(() => sub.results.some((r) => JSON.stringify(r).includes(runId)), 10_000, 'the event');
    const result = sub.results.find((r) => JSON.stringify(r).includes(runId));
    sub.stop();
    expect(result).toEqual({
      data: { inboxChanged: { change: 'ADDED', run: { id: runId, status: 'WAITING_FOR_APPROVAL' } } },
    });
  });

  it('a lower-case header and queries over HTTP use it too', async () => {
    const res = await fetcher(
      { query: '{ viewer { user { username } } }' },
      { headers: { authorization: `Bearer ${t.tokens.bob}` } },
    );
    expect(res).toEqual({ data: { viewer: { user: { username: 'bob' } } } });
  });

  it('without a token the subscription shows UNAUTHENTICATED (4401), with no stack trace', async () => {
    const sub = firstResult({}, SUBSCRIPTION, (r) => !!r.errors);
    const result = await sub.done;
    expect(result.errors).toEqual([
      { message: expect.stringContaining('4401'), extensions: { code: 'UNAUTHENTICATED', closeCode: 4401 } },
    ]);
    // what GraphiQL prints in its result pane
    expect(formatResult(result)).not.toMatch(/stack|\bat \S+ \(/i);
  });
});

/**
 * No stack traces for refusals, in any environment a server runs in: `test` (the suites) and
 * `production`; `npm start` runs `development`, which formats errors the same way (only field
 * suggestions differ). Over HTTP and graphql-ws.
 */
describe.each(['test', 'production'])('refusals carry no stack trace (NODE_ENV=%s)', (nodeEnv) => {
  const { t } = useTestApp({ NODE_ENV: nodeEnv });

  const UNKNOWN_RUN = '00000000-0000-4000-8000-000000000000';

  it('no error of a coded refusal has a stacktrace or exception in its extensions', async () => {
    const http = await Promise.all([
      t.gql('{ users { id } }', {}, 'bob'), // FORBIDDEN
      t.gql('mutation($id: ID!) { cancelRun(runId: $id) { id } }', { id: UNKNOWN_RUN }, 'alice'), // NOT_FOUND
      t.gql('{ run(id: "not-a-uuid") { id } }', {}, 'alice'), // BAD_USER_INPUT
      t.gql('{ viewer { user { username } } }', {}, null), // UNAUTHENTICATED
      t.gql('{ viewer { nope } }', {}, 'alice'), // GRAPHQL_VALIDATION_FAILED
      t.gql('{ viewer { ', {}, 'alice'), // GRAPHQL_PARSE_FAILED
    ]);
    const client = t.ws('alice');
    const ws = await Promise.all(
      [
        `subscription { runEvents(runId: "${UNKNOWN_RUN}") { kind } }`, // FORBIDDEN
        `subscription { runProgress(runId: "${UNKNOWN_RUN}") { kind } }`, // NOT_FOUND
        'subscription { inboxChanged { nope } }', // GRAPHQL_VALIDATION_FAILED
      ].map(
        (query) =>
          new Promise<unknown>((resolve) =>
            client.subscribe({ query }, { next: resolve, error: resolve, complete: () => resolve(null) }),
          ),
      ),
    );
    const errors = [
      ...http.flatMap((r) => r.errors ?? []),
      ...ws.flatMap((e) => (Array.isArray(e) ? e : ((e as { errors?: unknown[] } | null)?.errors ?? []))),
    ];
    const codes = errors.map((e) => (e as { extensions?: { code?: string } }).extensions?.code);
    expect(new Set(codes)).toEqual(
      new Set([
        'FORBIDDEN',
        'NOT_FOUND',
        'BAD_USER_INPUT',
        'UNAUTHENTICATED',
        'GRAPHQL_VALIDATION_FAILED',
        'GRAPHQL_PARSE_FAILED',
      ]),
    );
    expect(errors).toHaveLength(http.length + ws.length);
    for (const error of errors) expect(JSON.stringify(error)).not.toMatch(/stacktrace|exception|\.ts:\d/i);
  });
});
