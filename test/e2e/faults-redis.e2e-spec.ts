// Faults around a continuation (issue 7, item 3): Redis gone (a redis-server of the test's own,
// killed and brought back on its port) under the compiled API and two workers in child
// processes. Subscriptions end or are refused with a clear error, decisions keep working and are
// carried out once; with Redis back, subscriptions work again (test/support/faults.ts). PostgreSQL
// only, skipped with a note under PGlite or where redis-server is missing.
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { scriptedConfiguration } from '../support/processes';
import { itOnPostgresWith, onApiAndTwoWorkers, WRITE } from '../support/faults';
import { startPrivateRedis } from '../support/private-services';
import { sleep } from '../support/run-state';
import { collect, until, type Collected } from '../support/runs';
import { demoTokens } from '../support/test-database';

const PROGRESS = `subscription($id: ID!) { runProgress(runId: $id) { kind status stepCount } }`;

onApiAndTwoWorkers((h, fleet) => {
  itOnPostgresWith(
    h.redisBin ? null : 'needs redis-server on the PATH',
    'Redis down: subscriptions end or are refused with a clear error, decisions still work; Redis back: subscriptions work again',
    async () => {
      const config = await scriptedConfiguration(h.ds!, 'without-redis', [
        WRITE,
        { text: 'Done without Redis.' },
      ]);
      const id = await h.waitingRun(fleet.api.port, config, 70);
      const client = wsClient(fleet.api.port);
      try {
        // A subscriber follows the waiting run while Redis is up.
        const before = collect<{ runProgress: { kind: string } }>(client, PROGRESS, { id });
        await until(() => before.events.length > 0, 10_000, 'the snapshot');
        await h.privateRedis!.kill();
        // It is told that live updates stopped instead of waiting for events that never come.
        await Promise.race([before.done, sleep(10_000)]);
        expect(errorCodes(before.errors)).toEqual(['INTERNAL_SERVER_ERROR']);
        expect(errorMessages(before.errors).join()).toMatch(/live updates are unavailable/i);

        // A new subscription is refused promptly with the same clear error.
        const t0 = Date.now();
        const refused = collect<{ runProgress: { kind: string } }>(client, PROGRESS, { id });
        await Promise.race([refused.done, sleep(10_000)]);
        expect(Date.now() - t0).toBeLessThan(5000);
        expect(refused.events).toEqual([]);
        expect(errorCodes(refused.errors)).toEqual(['INTERNAL_SERVER_ERROR']);
        expect(errorMessages(refused.errors).join()).toMatch(/live updates are unavailable/i);

        // Decisions still work: promptly, carried out by a worker, written once.
        const t1 = Date.now();
        expect(await h.approve(fleet.api.port, id)).toEqual({
          path: 'DURABLE',
          run: { status: 'DECISION_RECORDED' },
        });
        expect(Date.now() - t1).toBeLessThan(3000);
        await h.settled(id);
        await h.expectCarriedOutOnce(id, 70);
        await h.expectNothingStranded();
        // Neither process fell over (an unhandled rejection of the Redis client ends a process).
        await sleep(2000);
        expect([fleet.api, ...fleet.workers].map((p) => p.alive())).toEqual([true, true, true]);

        // Redis back on its port: the instances reconnect and a subscription follows a run again.
        h.privateRedis = await startPrivateRedis(h.redisBin!, h.privateRedis!.port);
        // why: a worker whose publisher is still reconnecting would drop the run's events, as
        // it should; each process says when its publisher is back.
        await until(
          () =>
            [fleet.api, ...fleet.workers].every((p) => /redis publisher connected again/.test(p.output())),
          20_000,
          'every process to publish on Redis again',
        );
        const again = await h.waitingRun(fleet.api.port, config, 71);
        let live: Collected<{ runProgress: { kind: string; status: string } }> | null = null;
        await until(
          async () => {
            live?.unsubscribe();
            live = collect(client, PROGRESS, { id: again });
            await Promise.race([
              live.done,
              until(() => live!.events.length > 0, 3000).catch(() => undefined),
            ]);
            return live.events.length > 0;
          },
          20_000,
          'a subscription to be accepted again',
        );
        expect((await h.approve(fleet.api.port, again)).path).toBe('DURABLE');
        await Promise.race([live!.done, sleep(20_000)]);
        expect(live!.events.map((e) => e.runProgress.kind).at(-1)).toBe('SETTLED');
        expect(live!.errors).toEqual([]);
        await h.expectCarriedOutOnce(again, 71);
      } finally {
        await client.dispose();
      }
    },
    90_000,
  );
});

function wsClient(port: number): WsClient {
  return createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: { authorization: `Bearer ${demoTokens().alice}` },
  });
}

function errorCodes(errors: unknown[]): string[] {
  return errors.flatMap((e) =>
    Array.isArray(e)
      ? (e as Array<{ extensions?: { code?: string } }>).map((x) => x.extensions?.code ?? '?')
      : [(e as { extensions?: { code?: string } }).extensions?.code ?? String(e)],
  );
}

function errorMessages(errors: unknown[]): string[] {
  return errors.flatMap((e) =>
    Array.isArray(e)
      ? (e as Array<{ message: string }>).map((x) => x.message)
      : [(e as { message?: string }).message ?? ''],
  );
}
