import { Agent, request } from 'node:http';

/** One GraphQL request of a burst: the document, its variables, the bearer token. */
export interface BurstRequest {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly token: string;
}

/** An answer of a burst: the HTTP status and the parsed body. */
export interface BurstAnswer {
  readonly status: number;
  readonly body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
}

/** Connections opened for a burst: `send` it once, then `close`. */
export interface Burst {
  send(requests: readonly BurstRequest[]): Promise<BurstAnswer[]>;
  close(): void;
}

/**
 * Opens `size` connections to the app (one `viewer` request as `token` each), for a burst of
 * GraphQL requests that all reach the app in the same turn of its event loop, as a burst reaches
 * a busy server: each written at once to an open connection, while this thread (which the
 * in-process test app shares) is held until all are on their way.
 */
export async function openBurst(url: string, size: number, token: string): Promise<Burst> {
  const agent = new Agent({ keepAlive: true, maxSockets: size });
  const post = (r: BurstRequest) =>
    new Promise<BurstAnswer>((resolve, reject) => {
      const body = JSON.stringify({ query: r.query, variables: r.variables ?? {} });
      const req = request(
        url,
        {
          agent,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${r.token}`,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(Array.from({ length: size }, () => post({ query: '{ viewer { id } }', token })));
  return {
    async send(requests) {
      if (requests.length > size) throw new Error(`a burst of ${size} cannot send ${requests.length}`);
      const answers = requests.map(post);
      const until = Date.now() + 50;
      while (Date.now() < until) void 0;
      return Promise.all(answers);
    },
    close: () => agent.destroy(),
  };
}
