import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLClient } from './graphql';
import { ServerClock } from './server-clock';

/** A stand-in GraphQL endpoint: answers what it was sent, and on which connection. */
async function echoServer(): Promise<{ server: Server; url: string; sockets: Set<unknown> }> {
  const sockets = new Set<unknown>();
  const server = createServer((req: IncomingMessage, res) => {
    sockets.add(req.socket);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const status = req.headers.authorization ? 200 : 401;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: { method: req.method, auth: req.headers.authorization ?? null, body },
          ...(status === 401
            ? { errors: [{ message: 'no token', extensions: { code: 'UNAUTHENTICATED' } }] }
            : {}),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/graphql`, sockets };
}

describe('bench HTTP client and server clock', () => {
  let rig: Awaited<ReturnType<typeof echoServer>>;
  beforeEach(async () => (rig = await echoServer()));
  afterEach(async () => {
    rig.server.closeAllConnections();
    await new Promise((resolve) => rig.server.close(resolve));
  });

  it('POSTs the query and variables as JSON with the bearer token, and answers status and body', async () => {
    const client = new GraphQLClient(rig.url, 'tok-a');
    const res = await client.request<{ method: string; auth: string; body: unknown }>('query Q { a }', {
      x: 1,
    });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      method: 'POST',
      auth: 'Bearer tok-a',
      body: { query: 'query Q { a }', variables: { x: 1 } },
    });

    const anonymous = await client.as(null).request('query Q { a }');
    expect(anonymous.status).toBe(401);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    await expect(client.as(null).must('query Q { a }')).rejects.toThrow(/HTTP 401/);
  });

  it('keeps its connections alive and shares them with the clients `as()` makes', async () => {
    const client = new GraphQLClient(rig.url, 'tok-a');
    for (let i = 0; i < 5; i++) await client.request('{ a }');
    await client.as('tok-b').request('{ a }');
    expect(rig.sockets.size).toBe(1);
    await Promise.all(Array.from({ length: 8 }, () => client.request('{ a }')));
    expect(rig.sockets.size).toBe(8);
  });

  it('stamps each request when the server got it and when its response left', async () => {
    const clock = new ServerClock(rig.server);
    const client = new GraphQLClient(rig.url, 'tok-a');
    await client.request('{ a }');
    clock.reset();
    const before = performance.now();
    await client.request('{ a }');
    const after = performance.now();
    const [served, ...more] = clock.requests();
    expect(more).toHaveLength(0);
    expect(served!.arrivedAt).toBeGreaterThanOrEqual(before);
    expect(served!.finishedAt).toBeGreaterThanOrEqual(served!.arrivedAt);
    expect(served!.finishedAt).toBeLessThanOrEqual(after);
    clock.close();
    await client.request('{ a }');
    expect(clock.requests()).toHaveLength(1);
  });
});
