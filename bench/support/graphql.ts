import { createClient, type Client as WsClient } from 'graphql-ws';
import { Agent, request as httpRequest } from 'node:http';
import WebSocket from 'ws';

export interface GqlError {
  readonly message: string;
  readonly extensions?: Record<string, unknown>;
  readonly path?: unknown[];
}

export interface GqlResponse<T> {
  readonly status: number;
  readonly data?: T | null;
  readonly errors?: GqlError[];
}

/** A GraphQL request that came back with errors (or without data). */
export class GqlRequestError extends Error {
  constructor(readonly response: GqlResponse<unknown>) {
    super(`GraphQL request failed (HTTP ${response.status}): ${JSON.stringify(response.errors ?? null)}`);
    this.name = 'GqlRequestError';
  }
}

/**
 * GraphQL over HTTP as a client sees it: POST with a JSON body, connections kept alive and as
 * many as there are requests in flight. One instance per bearer token; `as()` shares the
 * connections.
 *
 * why node:http and not fetch: the bench's clients run in the process of the app they measure,
 * on the same two cores, so their CPU is counted against the app. Node's fetch (undici with
 * WHATWG streams, an AbortSignal and a Headers object per request) cost about a third of the
 * busy CPU of a bare request here, the client's side of a bare request about 0.4-0.6 ms more than
 * node:http's; P0 keeps a `viewer` over fetch beside it as a reference (bench/README.md, "Issue
 * 13, thirteenth round").
 */
export class GraphQLClient {
  constructor(
    readonly url: string,
    private readonly token: string | null,
    private readonly agent: Agent = new Agent({ keepAlive: true, maxSockets: Infinity }),
  ) {}

  /** Another client on the same endpoint and connections with another token (null: anonymous). */
  as(token: string | null): GraphQLClient {
    return new GraphQLClient(this.url, token, this.agent);
  }

  request<T>(query: string, variables?: Record<string, unknown>): Promise<GqlResponse<T>> {
    const body = JSON.stringify({ query, variables });
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    return new Promise((resolve, reject) => {
      const req = httpRequest(this.url, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              data?: T | null;
              errors?: GqlError[];
            };
            resolve({ status: res.statusCode ?? 0, ...parsed });
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The data of a request that must succeed; throws `GqlRequestError` otherwise. */
  async must<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const res = await this.request<T>(query, variables);
    if (res.errors?.length || !res.data) throw new GqlRequestError(res);
    return res.data;
  }
}

/** A graphql-ws client (subscriptions), authenticated with a bearer token; dispose it after use. */
export function wsClient(wsUrl: string, token: string | null): WsClient {
  return createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
  });
}

export const START_RUN = `mutation BenchStartRun($input: StartRunInput!) { startRun(input: $input) { id status } }`;
