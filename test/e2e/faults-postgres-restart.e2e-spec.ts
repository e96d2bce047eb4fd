// Faults around a continuation (issue 7, item 3): PostgreSQL restarted in the middle of a
// continuation, under the compiled API and a worker in child processes. The test starts a
// PostgreSQL server of its own (initdb/pg_ctl from /usr/lib/postgresql/*/bin) with a copy of its
// test database, never the shared one. The instances reconnect by themselves, the run finishes
// once, and /health reports the outage and the recovery (test/support/faults.ts). PostgreSQL
// only, skipped with a note under PGlite or where the server binaries are missing.
import { scriptedConfiguration, startServer, startWorker } from '../support/processes';
import { faultsHarness, itOnPostgresWith, WRITE } from '../support/faults';
import { startPrivatePostgres } from '../support/private-services';
import { READ, runState, sleep } from '../support/run-state';
import { until } from '../support/runs';

describe('faults around a continuation (compiled API and worker processes)', () => {
  const h = faultsHarness();

  describe("PostgreSQL restarted under an API instance and a worker (a server of the test's own)", () => {
    afterEach(() => h.cleanUp(), 60_000);

    itOnPostgresWith(
      h.pgBin
        ? null
        : 'needs PostgreSQL server binaries (initdb, pg_ctl, pg_dump, psql) under /usr/lib/postgresql/*/bin, and as root a postgres user',
      'the instances reconnect by themselves, the run finishes once, /health reports the outage and the recovery',
      async () => {
        await h.prepareDatabase();
        h.privatePg = await startPrivatePostgres(h.pgBin!);
        await h.privatePg.copyFrom(h.db!.url!, 'faults');
        // From here on the test database is the private server's copy.
        await h.ds!.destroy();
        const url = h.privatePg.url('faults');
        h.ds = await h.open(url);
        const config = await scriptedConfiguration(
          h.ds,
          'across-restart',
          [
            WRITE,
            { ...READ, delayMs: 1500 },
            { ...READ, delayMs: 1500 },
            { text: 'Done across the restart.' },
          ],
          8,
        );
        const [api, worker] = await Promise.all([startServer(h.env(url)), startWorker(h.env(url), h.ds)]);
        const health = async (): Promise<number> =>
          (await fetch(`http://127.0.0.1:${api.port}/health`).catch(() => null))?.status ?? 0;
        expect(await health()).toBe(200);

        const id = await h.waitingRun(api.port, config, 60);
        expect((await h.approve(api.port, id)).path).toBe('DURABLE');
        await h.inFirstSlowRound(id, 60);
        await h.ds.destroy();
        h.ds = null;
        await h.privatePg.stop();
        const down = Date.now();
        await until(async () => (await health()) === 503, 15_000, '/health to report the outage');
        const reportedDownAfter = Date.now() - down;
        // why: past the slow round and the lease, so the continuation meets the outage.
        await sleep(2000);
        expect(await health()).toBe(503);
        await h.privatePg.start();
        const up = Date.now();
        await until(async () => (await health()) === 200, 20_000, '/health to report the recovery');
        const reportedUpAfter = Date.now() - up;
        h.ds = await h.open(url);

        await h.settled(id, 60_000);
        await h.expectCarriedOutOnce(id, 60);
        await h.expectNothingStranded();
        expect([api.alive(), worker.alive()]).toEqual([true, true]);
        // The worker LISTENs for work again by itself, and the instances for token changes.
        const listeners = async (channel: string): Promise<number> =>
          (
            await h.ds!.query<unknown[]>(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
                AND application_name = 'countersign-listener' AND query = $1`,
              [`LISTEN ${channel}`],
            )
          ).length;
        await until(
          async () =>
            (await listeners('countersign_work')) === 1 && (await listeners('countersign_auth')) >= 1,
          40_000,
          'the LISTEN connections to come back',
        );
        // And a new decision goes through both instances as before.
        const after = await h.waitingRun(api.port, config, 61);
        expect((await h.approve(api.port, after)).path).toBe('DURABLE');
        await h.settled(after);
        await h.expectCarriedOutOnce(after, 61);
        console.log(
          `PostgreSQL restart: /health 503 after ${reportedDownAfter} ms, 200 again ${reportedUpAfter} ms after the start; ` +
            `run ${JSON.stringify(await runState(h.ds, id))}`,
        );
      },
      150_000,
    );
  });
});
