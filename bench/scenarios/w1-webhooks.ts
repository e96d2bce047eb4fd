// W1: webhook delivery. Events are committed through the outbox (WebhookOutbox.record inside a
// TransactionRunner transaction, as the settle and decision paths do) and delivered by the
// app's in-process worker to a local receiver that verifies every signature with the
// standardwebhooks package. Latency: from the event's commit to the receiver having it, one
// event at a time (p50, p99). Throughput: a burst of events committed in one transaction, commit to last receipt.
// Baseline, same receiver, same run: raw HTTP POSTs of the same body from this process (one at
// a time for latency; DELIVERY_BATCH at a time for throughput).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DELIVERY_BATCH, WebhookOutbox } from '../../src/modules/webhooks';
import { TransactionRunner } from '../../src/platform/database/transaction-runner';
import { bootApp } from '../support/app';
import { withBenchDatabase } from '../support/database';
import { describeEnvironment, type BenchOptions } from '../support/env';
import { rawClient } from '../support/pg';
import type { Check, Figure } from '../support/report';
import { quantile, ratio, sleep, summarize } from '../support/stats';
import type { Scenario, ScenarioOutcome } from '../scenario';

interface Plan {
  readonly reps: number;
  /** Events sent one at a time per repetition (latency). */
  readonly sequential: number;
  /** Events in one burst per repetition (throughput). */
  readonly burst: number;
}

const FULL_PLAN: Plan = { reps: 5, sequential: 200, burst: 2000 };
// why: CI runs --quick; a few seconds in all.
const QUICK_PLAN: Plan = { reps: 2, sequential: 20, burst: 200 };

const settled = () => ({
  type: 'run.settled' as const,
  runId: randomUUID(),
  data: () => Promise.resolve({ status: 'COMPLETED', bench: true }),
});

const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;

/** A receiver that verifies each request and resolves the waiter of its `webhook-id`. */
class Receiver {
  readonly arrivals = new Map<string, number>();
  duplicates = 0;
  forged = 0;
  private readonly waiters = new Map<string, () => void>();
  private webhook: Webhook | null = null;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let self: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => self!.take(Buffer.concat(chunks).toString('utf8'), req.headers, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new Receiver(server, `http://127.0.0.1:${port}/hook`);
    return self;
  }

  useSecret(secret: string): void {
    this.webhook = new Webhook(secret);
  }

  arrived(id: string): Promise<void> {
    if (this.arrivals.has(id)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(id, resolve));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(
    body: string,
    headers: Record<string, unknown>,
    res: import('node:http').ServerResponse,
  ): void {
    const now = performance.now();
    const id = String(headers['webhook-id']);
    try {
      if (headers['webhook-signature'] !== 'baseline')
        this.webhook!.verify(body, headers as Record<string, string>);
    } catch {
      this.forged += 1;
      res.writeHead(400).end();
      return;
    }
    if (this.arrivals.has(id)) this.duplicates += 1;
    else this.arrivals.set(id, now);
    res.writeHead(204).end();
    this.waiters.get(id)?.();
    this.waiters.delete(id);
  }
}

interface Rep {
  readonly latencyMs: number[];
  readonly baselineLatencyMs: number[];
  readonly perSecond: number;
  readonly baselinePerSecond: number;
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  return withBenchDatabase(options.databaseUrl, 'w1', async (db) => {
    const observer = await rawClient(db.url, 'countersign-bench-w1-observer');
    const receiver = await Receiver.start();
    const app = await bootApp(db, { env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      const environment = await describeEnvironment(observer);
      const created = await app.gql.must<{ createWebhookEndpoint: { secret: string } }>(CREATE, {
        input: { url: receiver.url, eventTypes: ['RUN_SETTLED'] },
      });
      receiver.useSecret(created.createWebhookEndpoint.secret);
      const outbox = app.app.get(WebhookOutbox);
      const transactions = app.app.get(TransactionRunner);

      /** Commits one event; resolves with its id and the moment it committed. */
      const commit = async (): Promise<{ id: string; at: number }> => {
        let at = 0;
        const id = await transactions.run(async (tx) => {
          tx.afterCommit(() => {
            at = performance.now();
          });
          return outbox.record(settled());
        });
        return { id: id!, at };
      };
      const body = JSON.stringify({ type: 'run.settled', timestamp: new Date().toISOString(), data: {} });
      const post = (id: string) =>
        fetch(receiver.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': '0',
            'webhook-signature': 'baseline',
          },
          body,
        }).then((r) => r.body?.cancel());

      const repetition = async (): Promise<Rep> => {
        const latencyMs: number[] = [];
        for (let i = 0; i < plan.sequential; i++) {
          const event = await commit();
          await receiver.arrived(event.id);
          latencyMs.push(receiver.arrivals.get(event.id)! - event.at);
        }
        const baselineLatencyMs: number[] = [];
        for (let i = 0; i < plan.sequential; i++) {
          const id = `baseline-${randomUUID()}`;
          const start = performance.now();
          await post(id);
          baselineLatencyMs.push(receiver.arrivals.get(id)! - start);
        }
        // why: one transaction for the burst, so the figure is the delivery's, not the commits'.
        let burstStart = 0;
        const events = await transactions.run(async (tx) => {
          tx.afterCommit(() => {
            burstStart = performance.now();
          });
          const ids: string[] = [];
          for (let i = 0; i < plan.burst; i++) ids.push((await outbox.record(settled()))!);
          return ids;
        });
        await Promise.all(events.map((id) => receiver.arrived(id)));
        const perSecond = plan.burst / ((performance.now() - burstStart) / 1000);
        const baseStart = performance.now();
        const ids = Array.from({ length: plan.burst }, () => `baseline-${randomUUID()}`);
        for (let i = 0; i < ids.length; i += DELIVERY_BATCH)
          await Promise.all(ids.slice(i, i + DELIVERY_BATCH).map(post));
        const baselinePerSecond = plan.burst / ((performance.now() - baseStart) / 1000);
        return { latencyMs, baselineLatencyMs, perSecond, baselinePerSecond };
      };

      await repetition(); // warm-up
      const reps: Rep[] = [];
      for (let r = 0; r < plan.reps; r++) reps.push(await repetition());
      // why: the receiver answers before the worker records the try; give the records a moment.
      const notSucceeded = async () =>
        (
          await observer.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_delivery WHERE status <> 'SUCCEEDED'`,
          )
        ).rows[0]!.n;
      for (let i = 0; i < 100 && (await notSucceeded()) > 0; i++) await sleep(100);
      const left = await notSucceeded();
      const q = (values: number[], at: number) =>
        quantile(
          [...values].sort((a, b) => a - b),
          at,
        );
      const s = (f: (r: Rep) => number) => summarize(reps.map(f));
      const figures: Figure[] = [
        {
          name: 'webhook latency p50 (event committed -> receiver has it)',
          unit: 'ms',
          ours: s((r) => q(r.latencyMs, 0.5)),
          baseline: {
            label: 'raw HTTP POST to the same receiver, p50',
            value: s((r) => q(r.baselineLatencyMs, 0.5)),
          },
          ratio: s((r) => ratio(q(r.latencyMs, 0.5), q(r.baselineLatencyMs, 0.5))),
        },
        {
          name: 'webhook latency p99',
          unit: 'ms',
          ours: s((r) => q(r.latencyMs, 0.99)),
          baseline: { label: 'raw HTTP POST, p99', value: s((r) => q(r.baselineLatencyMs, 0.99)) },
          ratio: s((r) => ratio(q(r.latencyMs, 0.99), q(r.baselineLatencyMs, 0.99))),
        },
        {
          name: `deliveries per second (${plan.burst} events committed together, commit to last receipt)`,
          unit: '/s',
          ours: s((r) => r.perSecond),
          baseline: {
            label: `raw HTTP POSTs, ${DELIVERY_BATCH} at a time`,
            value: s((r) => r.baselinePerSecond),
          },
          ratio: s((r) => ratio(r.perSecond, r.baselinePerSecond)),
        },
      ];
      const checks: Check[] = [
        {
          name: 'every signature verified (standardwebhooks)',
          ok: receiver.forged === 0,
          detail: `forged: ${receiver.forged}`,
        },
        {
          name: 'every event delivered once (no duplicate, none left pending or failed)',
          ok: receiver.duplicates === 0 && left === 0,
          detail: `duplicates: ${receiver.duplicates}, not succeeded: ${left}`,
        },
      ];
      return {
        database: db.name,
        environment,
        checks,
        figures,
        details: { plan, perRep: reps.map(summaryOf) },
      };
    } finally {
      await app.close();
      await receiver.close();
      await observer.end();
    }
  });
}

function summaryOf(r: Rep) {
  return {
    latencyMs: summarize(r.latencyMs),
    baselineLatencyMs: summarize(r.baselineLatencyMs),
    perSecond: r.perSecond,
    baselinePerSecond: r.baselinePerSecond,
  };
}

export const W1: Scenario = {
  id: 'W1',
  title: 'webhooks: outbox commit to signed delivery, against raw HTTP POSTs to the same receiver',
  run,
};
