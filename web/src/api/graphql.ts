import { createClient, type Client } from 'graphql-ws/client';

/** A refused or failed operation: the contract's `extensions.code` and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface GraphQLErrorShape {
  message: string;
  extensions?: Record<string, unknown>;
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLErrorShape[];
}

/** The first error of a response as an {@link ApiError}. */
export function toApiError(errors: readonly GraphQLErrorShape[] | undefined, status = 200): ApiError {
  const first = errors?.[0];
  const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : undefined;
  if (code) return new ApiError(code, first?.message ?? code, first?.extensions ?? {});
  if (status === 401) return new ApiError('UNAUTHENTICATED', 'Unauthenticated');
  return new ApiError('INTERNAL_SERVER_ERROR', first?.message ?? `HTTP ${status}`);
}

/** The same-origin GraphQL endpoint, over HTTP and graphql-ws. */
export const GRAPHQL_PATH = '/graphql';

/**
 * One signed-in session with the API: queries and mutations over HTTP, subscriptions over
 * graphql-ws, both with the same bearer token. Nothing but the public API is used.
 */
export class Api {
  private ws: Client | null = null;
  private live = true;
  private readonly liveListeners = new Set<(live: boolean) => void>();

  constructor(private readonly token: string) {}

  /**
   * Follows the state of the live connection: `false` once the WebSocket was refused or lost
   * for good (no more retries), `true` again when it connects. Returns the function that stops.
   */
  onLiveChange(listener: (live: boolean) => void): () => void {
    this.liveListeners.add(listener);
    listener(this.live);
    return () => this.liveListeners.delete(listener);
  }

  private setLive(live: boolean): void {
    if (this.live === live) return;
    this.live = live;
    for (const listener of this.liveListeners) listener(live);
  }

  /** Runs a query or mutation; resolves with `data`, rejects with an {@link ApiError}. */
  async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(GRAPHQL_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ query, variables }),
      });
    } catch {
      throw new ApiError('NETWORK', 'The server cannot be reached');
    }
    let body: GraphQLResponse<T>;
    try {
      body = (await res.json()) as GraphQLResponse<T>;
    } catch {
      throw toApiError(undefined, res.status);
    }
    if (body.errors?.length || !body.data) throw toApiError(body.errors, res.status);
    return body.data;
  }

  /**
   * Subscribes; `onEvent` gets each event's data, `onEnd` the end of the stream (with the
   * error that ended it, if any). Returns the function that unsubscribes.
   */
  subscribe<T>(
    query: string,
    variables: Record<string, unknown>,
    onEvent: (data: T) => void,
    onEnd: (error?: ApiError) => void = () => undefined,
  ): () => void {
    return this.client().subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          if (result.errors?.length) onEnd(toApiError(result.errors));
          else if (result.data) onEvent(result.data);
        },
        error: (e) => {
          const error = socketError(e);
          if (error.code === 'LIVE_CONNECTION_LOST') this.setLive(false);
          onEnd(error);
        },
        complete: () => onEnd(),
      },
    );
  }

  /** Closes the WebSocket (on sign-out). */
  dispose(): void {
    const ws = this.ws;
    this.ws = null;
    void ws?.dispose();
  }

  private client(): Client {
    if (!this.ws) {
      const url = new URL(GRAPHQL_PATH, window.location.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      this.ws = createClient({
        url: url.toString(),
        lazy: true,
        retryAttempts: 5,
        // why: a refused origin (4403) or too many connections (4429) will not pass on a retry;
        // the page says at once that live updates stopped instead of retrying for half a minute.
        shouldRetry: (e) => !REFUSED_CLOSE_CODES.has((e as { code?: number } | null)?.code ?? 0),
        connectionParams: { authorization: `Bearer ${this.token}` },
        on: { connected: () => this.setLive(true) },
      });
    }
    return this.ws;
  }
}

/** Close codes the server refuses a connection with, which a retry would meet again. */
const REFUSED_CLOSE_CODES: ReadonlySet<number> = new Set([4401, 4403, 4429]);

function socketError(e: unknown): ApiError {
  if (Array.isArray(e)) return toApiError(e as GraphQLErrorShape[]);
  const close = e as { code?: number } | null;
  if (close?.code === 4401) return new ApiError('UNAUTHENTICATED', 'Unauthenticated');
  return new ApiError('LIVE_CONNECTION_LOST', 'The live connection was lost');
}
