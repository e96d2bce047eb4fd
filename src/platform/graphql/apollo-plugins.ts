import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';
import { nulByteError, nulByteIn } from './nul-bytes';

/**
 * Refuses a subscription sent over HTTP (BAD_USER_INPUT, 400): Apollo would otherwise run the
 * subscription's resolver once without an event and fail inside it. Subscriptions are served
 * over graphql-ws on the same path.
 */
export function subscriptionsOverWsOnly(): ApolloServerPlugin {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation({ operation }) {
          if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
            throw new GraphQLError('Subscriptions are served over graphql-ws (same path, /graphql)', {
              extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
            });
          }
          return Promise.resolve();
        },
      }),
  };
}

/**
 * Refuses an operation whose input carries a NUL character, in a string literal or anywhere in
 * its variables (BAD_USER_INPUT, 400), before anything runs: PostgreSQL cannot store one.
 */
export function refuseNulBytes(): ApolloServerPlugin {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation({ document, request }) {
          const where = nulByteIn(document, request.variables);
          if (where) throw nulByteError(where);
          return Promise.resolve();
        },
      }),
  };
}

const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
const APPLICATION_JSON = 'application/json';

/**
 * The media type of the answer, as Apollo picks it: the acceptable one with the higher `q`
 * (the earlier in the header on a tie); application/json without an Accept header or for
 * wildcards. Null where neither is acceptable (Apollo then answers 406 itself).
 */
export function responseMediaType(accept: string | undefined): string | null {
  if (!accept) return APPLICATION_JSON;
  let best: { type: string; q: number } | null = null;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const type =
      range === GRAPHQL_RESPONSE_JSON || range === APPLICATION_JSON
        ? range
        : range === '*/*' || range === 'application/*'
          ? APPLICATION_JSON
          : null;
    if (type && (!best || q > best.q)) best = { type, q };
  }
  return best?.type ?? null;
}

/**
 * The headers and status of every answer over HTTP. `Cache-Control: no-store`: an answer is one
 * user's data as of now, never for a cache between the client and the server (Apollo's cache
 * control plugin would set the same for schemas without cache hints, which this one has none of,
 * at the price of wrapping every field's resolver; it is disabled in graphql.setup.ts).
 *
 * The GraphQL-over-HTTP spec's status codes: a well-formed request whose document does not
 * parse or validate, or whose variables do not coerce, is answered 200 to a client that accepts
 * `application/json` (the legacy type, which says nothing about the error in its status) and
 * 400 to one that prefers `application/graphql-response+json`. Other statuses (401, 413, 429)
 * stay as they are. The content type is set here so that it matches the status.
 */
export function graphqlOverHttpStatus(): ApolloServerPlugin {
  return {
    requestDidStart: ({ request }) =>
      Promise.resolve({
        willSendResponse({ response, errors }) {
          response.http.headers.set('cache-control', 'no-store');
          const type = responseMediaType(request.http?.headers.get('accept'));
          if (!type || response.body.kind !== 'single') return Promise.resolve();
          response.http.headers.set('content-type', `${type}; charset=utf-8`);
          // why: a request that is not a well-formed GraphQL-over-HTTP request (a `query` that is
          // no string, say: Apollo's BAD_REQUEST) keeps its 400 whatever the client accepts.
          const malformed = errors?.some((e) => e.extensions?.code === 'BAD_REQUEST') ?? false;
          if (type === APPLICATION_JSON && response.http.status === 400 && !malformed) {
            response.http.status = 200;
          }
          return Promise.resolve();
        },
      }),
  };
}
