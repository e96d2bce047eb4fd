import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

/** One HTTP request as the app's server saw it, on the bench's `performance.now()` clock. */
export interface ServedRequest {
  /** The request's headers parsed (the server's 'request' event). */
  readonly arrivedAt: number;
  /** The whole response handed to the operating system ('finish'); NaN until then. */
  finishedAt: number;
}

/**
 * Stamps the HTTP requests of the in-process app as its server sees them: the moment a request
 * arrived, and the moment its response left for the socket. P1's client runs in the same
 * process, so its own view adds the time its side takes to send and to read on a shared event
 * loop; these stamps give the server's part alone.
 */
export class ServerClock {
  private served: ServedRequest[] = [];
  private readonly listener = (_req: IncomingMessage, res: ServerResponse): void => {
    const entry: ServedRequest = { arrivedAt: performance.now(), finishedAt: NaN };
    this.served.push(entry);
    res.once('finish', () => (entry.finishedAt = performance.now()));
  };

  constructor(private readonly server: Server) {
    // why: before Express's own listener, so the stamp is not behind the app's middleware.
    server.prependListener('request', this.listener);
  }

  /** Forgets what was stamped so far. */
  reset(): void {
    this.served = [];
  }

  /** The requests stamped since the last reset, in order of arrival. */
  requests(): readonly ServedRequest[] {
    return this.served;
  }

  close(): void {
    this.server.off('request', this.listener);
  }
}
