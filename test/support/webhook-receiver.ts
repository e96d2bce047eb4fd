import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver accepted: its verified body and headers, and what it answered. */
export interface Received {
  readonly id: string;
  readonly type: string;
  readonly runId: string | null;
  readonly payload: { type: string; timestamp: string; data: Record<string, any> };
  readonly answered: number;
}

export interface Receiver {
  readonly url: string;
  /** Requests whose signature verified, in arrival order (answered 2xx or not). */
  readonly received: Received[];
  /** Requests answered 2xx, in arrival order. */
  succeeded(): Received[];
  /** Requests whose signature did not verify (answered 400). */
  readonly forged: number;
  /** Sets the secret signatures are verified with (from createWebhookEndpoint). */
  useSecret(secret: string): void;
  /** The first `n` tries of every event id are answered 500. */
  failFirst(n: number): void;
  /** Requests are held without an answer until `release()` (a worker killed mid-request). */
  hold(): void;
  release(): void;
  /** Requests held now, unanswered. */
  heldCount(): number;
  close(): Promise<void>;
}

/**
 * A local HTTP receiver as a user writes one: every request's signature is verified with the
 * `standardwebhooks` package (Webhook.verify); a forged or unsigned request is answered 400.
 */
export async function startReceiver(): Promise<Receiver> {
  let webhook: Webhook | null = null;
  let failures = 0;
  let held: Array<() => void> | null = null;
  const tries = new Map<string, number>();
  const received: Received[] = [];
  let forged = 0;
  const server: Server = createServer((req, res) => {
    void bodyOf(req).then(async (body) => {
      let payload: Received['payload'];
      try {
        payload = webhook!.verify(body, req.headers as Record<string, string>) as Received['payload'];
      } catch {
        forged += 1;
        res.writeHead(400).end();
        return;
      }
      if (held) await new Promise<void>((resolve) => held!.push(resolve));
      const id = String(req.headers['webhook-id']);
      const n = (tries.get(id) ?? 0) + 1;
      tries.set(id, n);
      const answered = n <= failures ? 500 : 204;
      received.push({ id, type: payload.type, runId: payload.data?.runId ?? null, payload, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    succeeded: () => received.filter((r) => r.answered < 300),
    get forged() {
      return forged;
    },
    useSecret: (secret) => {
      webhook = new Webhook(secret);
    },
    failFirst: (n) => {
      failures = n;
    },
    hold: () => {
      held = [];
    },
    heldCount: () => held?.length ?? 0,
    release: () => {
      const waiting = held ?? [];
      held = null;
      waiting.forEach((resolve) => resolve());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
