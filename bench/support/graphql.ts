import { createClient, type Client as WsClient } from 'graphql-ws';
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
 * GraphQL over HTTP as a client sees it (fetch keeps connections alive, as a browser does).
 * One instance per bearer token.
 */
export class GraphQLClient {
  constructor(
    readonly url: string,
    private readonly token: string | null,
  ) {}

  /** Another client on the same endpoint with another token (null: anonymous). */
  as(token: string | null): GraphQLClient {
    return new GraphQLClient(this.url, token);
  }

  async request<T>(query: string, variables?: Record<string, unknown>): Promise<GqlResponse<T>> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: T | null; errors?: GqlError[] };
    return { status: res.status, ...body };
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
