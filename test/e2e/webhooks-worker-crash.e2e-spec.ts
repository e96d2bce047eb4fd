// kill -9 of the worker process that is delivering webhooks loses no event: the outbox rows
// committed with the runs' settles (written by that worker), the delivery in flight is taken
// again by the next worker once its lease lapses, and every event reaches the receiver.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../src/config/app-config';
import { StateVault, WORK_CHANNEL } from '../../src/modules/runs';
import {
  build,
  kill9,
  queueRun,
  scriptedConfiguration,
  startWorker,
  type Spawned,
} from '../support/processes';
import { until } from '../support/runs';
import { createTestDatabase, itOnPostgres, openDataSource, TestDatabase } from '../support/test-database';
import { TEST_STATE_KEY } from '../support/test-env';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('webhooks: kill -9 of the delivering worker process', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-webhooks-'));
  let db: TestDatabase;
  let ds: DataSource;
  let receiver: Receiver;
  const workers: Spawned[] = [];
  beforeAll(() => build(), 240_000);
  afterAll(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await receiver?.close();
    await ds?.destroy();
    await db?.dispose();
    rmSync(temp, { recursive: true, force: true });
  });

  itOnPostgres(
    'loses no event: the delivery in flight is sent again by the next worker',
    async () => {
      db = await createTestDatabase();
      ds = await openDataSource(db, 4);
      receiver = await startReceiver();
      receiver.useSecret(SECRET);
      await ds.query(
        `INSERT INTO webhook_endpoint (id, url, event_types, secret) VALUES (gen_random_uuid(), $1, '{run.settled}', $2)`,
        [receiver.url, SECRET],
      );
      const env = {
        DATABASE_URL: db.url!,
        STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
        DATA_DIR: join(temp, 'data'),
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        // why: a lease of 2 x 500 ms + 5 s, so the next worker takes the delivery soon.
        WEBHOOKS_TIMEOUT_MS: '500',
        WEBHOOKS_POLL_MS: '100',
        WEBHOOKS_RETRY_BASE_MS: '50',
      };
      // the first worker settles the runs (writing the outbox rows) and starts delivering;
      // the receiver holds every request, so the worker is killed with one in flight
      receiver.hold();
      const first = await startWorker(env, ds);
      workers.push(first);
      const vault = new StateVault({ stateEncryptionKey: TEST_STATE_KEY, dataDir: temp } as AppConfig);
      const quick = await scriptedConfiguration(ds, 'quick', [{ text: 'Done.' }]);
      const runs = [
        await queueRun(ds, vault, quick),
        await queueRun(ds, vault, quick),
        await queueRun(ds, vault, quick),
      ];
      await ds.query(`SELECT pg_notify($1, '')`, [WORK_CHANNEL]);
      const outboxRows = async () =>
        (await ds.query(`SELECT count(*)::int AS n FROM webhook_delivery WHERE run_id = ANY($1)`, [runs]))[0]
          .n as number;
      await until(async () => (await outboxRows()) === 3, 20_000, 'the three settles in the outbox');
      await until(() => receiver.heldCount() > 0, 20_000, 'a delivery in flight');
      await kill9(first);
      receiver.release();

      const second = await startWorker(env, ds);
      workers.push(second);
      await until(
        async () =>
          (
            await ds.query(
              `SELECT count(*)::int AS n FROM webhook_delivery WHERE run_id = ANY($1) AND status = 'SUCCEEDED'`,
              [runs],
            )
          )[0].n === 3,
        30_000,
        'every delivery to succeed',
      );
      const delivered = new Set(receiver.succeeded().map((r) => r.runId));
      expect([...delivered].sort()).toEqual([...runs].sort());
      expect(receiver.forged).toBe(0);
      expect(await outboxRows()).toBe(3);
    },
    120_000,
  );
});
