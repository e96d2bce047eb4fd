import type { Client as WsClient } from 'graphql-ws';
import type { GqlResponse } from './test-app';

/** Helpers of the GraphQL limit suite (limits.e2e-spec.ts, docs/security.md), fit for any suite that probes them. */

/** `{ __type { fields { type { ofType ... { name } } } } }` nested `depth` levels deep. */
export function nestedQuery(depth: number): string {
  const chain = [
    '__type(name: "Query")',
    'fields',
    'type',
    ...Array<string>(Math.max(0, depth - 4)).fill('ofType'),
  ];
  return `{ ${chain.map((f) => `${f} {`).join(' ')} name ${'} '.repeat(chain.length)}}`;
}

/** One operation over graphql-ws: the `next` result, or the `error` payload as errors. */
export function overWs(
  client: WsClient,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GqlResponse> {
  return new Promise((resolve) => {
    let result: GqlResponse = { status: 0 };
    client.subscribe(
      { query, variables },
      {
        next: (r) => (result = { status: 0, ...(r as Omit<GqlResponse, 'status'>) }),
        error: (e) => resolve({ status: -1, errors: Array.isArray(e) ? (e as GqlResponse['errors']) : [] }),
        complete: () => resolve(result),
      },
    );
  });
}

/** Apollo's codes for a document that does not validate / parse (BAD_USER_INPUT: bad values). */
export const VALIDATION = 'GRAPHQL_VALIDATION_FAILED';
export const PARSE = 'GRAPHQL_PARSE_FAILED';
