import { createServer } from 'node:net';

/** Every port this process handed out (or found taken): never handed out again. */
const handedOut = new Set<number>();

/**
 * A TCP port nobody listens on now, for a child process to listen on (the bench's and the
 * tests' servers, PostgreSQL, Redis). Drawn below the system's ephemeral range (32768 and up on
 * Linux): a port from `listen(0)` comes from that range, where any suite's outgoing connection
 * can take it before the child binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    // why: two children started together must not be handed the same port before either binds it.
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}
