// How a worker hears of work: LISTEN on PostgreSQL (with reconnects), and the reconcile of an
// API-only instance that takes overdue recorded decisions while no worker is live.
import type { AppConfig } from '../../../src/config/app-config';
import type { RecordedDecisions } from '../../../src/modules/approvals';
import { WORK_CHANNEL, type QueuedRuns, type RunExecutor } from '../../../src/modules/runs';
import { DecisionReconciler } from '../../../src/modules/worker/application/decision-reconciler';
import { WorkListener } from '../../../src/modules/worker/application/work-listener';
import { until } from '../../support/runs';
import { itOnPostgres, useTestDatabase } from '../../support/test-database';
import { heartbeatOn, seedHeartbeat, TEST_WORKER_CONFIG } from './worker-support';

describe('waking a worker', () => {
  const suite = useTestDatabase({ quietLogs: true });

  const listenerConnections = async (): Promise<number> => {
    const [row] = await suite.ds.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = 'countersign-listener' AND datname = current_database()`,
    );
    return row!.n;
  };

  describe('WorkListener', () => {
    it('does nothing without DATABASE_URL (the embedded mode wakes its worker in-process)', async () => {
      const listener = new WorkListener({ databaseUrl: null } as AppConfig);
      let wakes = 0;
      listener.start(() => (wakes += 1));
      await new Promise((r) => setTimeout(r, 50));
      expect(listener.listening).toBe(false);
      expect(wakes).toBe(0);
      await listener.stop();
    });

    itOnPostgres(
      'wakes on each NOTIFY, reconnects after losing its connection, and stops cleanly',
      async () => {
        const listener = new WorkListener({ databaseUrl: suite.db.url } as AppConfig);
        let wakes = 0;
        listener.start(() => (wakes += 1));
        try {
          await until(() => listener.listening, 5000, 'LISTEN');
          expect(wakes).toBe(1); // the catch-up pass once listening
          await suite.ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
          await until(() => wakes === 2, 5000, 'the first notification');
          await suite.ds.query(`SELECT pg_notify('some_other_channel', '')`);
          await suite.ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
          await until(() => wakes === 3, 5000, 'the second notification');
          expect(await listenerConnections()).toBe(1);

          // The server drops the connection: the listener reconnects (with a backoff), catches up.
          await suite.ds.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = 'countersign-listener' AND datname = current_database()`,
          );
          await until(() => !listener.listening, 5000, 'the loss to be noticed');
          await until(() => listener.listening, 10_000, 'LISTEN again');
          expect(wakes).toBe(4);
          await suite.ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
          await until(() => wakes === 5, 5000, 'a notification after the reconnect');
        } finally {
          await listener.stop();
        }
        expect(listener.listening).toBe(false);
        await until(async () => (await listenerConnections()) === 0, 5000, 'the connection to close');
        await suite.ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
        await new Promise((r) => setTimeout(r, 200));
        expect(wakes).toBe(5);
      },
    );

    itOnPostgres('keeps retrying while the database refuses, without throwing', async () => {
      const url = new URL(suite.db.url!);
      url.pathname = '/cs_no_such_database';
      const listener = new WorkListener({ databaseUrl: url.toString() } as AppConfig);
      const failures = (): number => (listener as unknown as { failures: number }).failures;
      listener.start(() => undefined);
      try {
        await until(() => failures() >= 2, 5000, 'two failed attempts');
        expect(listener.listening).toBe(false);
      } finally {
        await listener.stop();
      }
    });
  });

  describe('DecisionReconciler (API-only instances)', () => {
    function reconcilerWith(active: number) {
      const calls: Array<[string, number, number | undefined]> = [];
      const decisions = {
        pickUp: (by: string, limit: number, olderThan?: number) => {
          calls.push([by, limit, olderThan]);
          return Promise.resolve(0);
        },
      };
      const executor = { activeCount: () => active, instanceId: 'api:test:7' };
      const config = { ...TEST_WORKER_CONFIG, decisionPickupSeconds: 30 } as AppConfig;
      const reconciler = new DecisionReconciler(
        decisions as unknown as RecordedDecisions,
        executor as unknown as RunExecutor,
        heartbeatOn(suite.ds, config),
        config,
        { claim: () => Promise.resolve([]) } as unknown as QueuedRuns,
      );
      return { reconciler, calls };
    }

    beforeEach(async () => {
      await suite.ds.query('DELETE FROM worker_heartbeat');
    });

    it('takes overdue recorded decisions for its free slots only while no worker is live', async () => {
      const { reconciler, calls } = reconcilerWith(1);
      await reconciler.reconcileOnce();
      expect(calls).toEqual([['api:test:7', 3, 30]]);

      await seedHeartbeat(suite.ds, 45); // a dead worker's row does not count
      await reconciler.reconcileOnce();
      expect(calls).toHaveLength(2);

      await seedHeartbeat(suite.ds, 2);
      await reconciler.reconcileOnce();
      expect(calls).toHaveLength(2);
    });

    it('takes nothing while this instance has no free slot', async () => {
      const { reconciler, calls } = reconcilerWith(TEST_WORKER_CONFIG.workerConcurrency);
      expect(await reconciler.reconcileOnce()).toBe(false);
      expect(calls).toEqual([]);
    });
  });
});
