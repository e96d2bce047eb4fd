import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../../src/config/app-config';
import { WorkerHeartbeat } from '../../../src/modules/worker';
import { WorkerPresence } from '../../../src/modules/runs';

/** The configuration the worker services read in these tests. */
export const TEST_WORKER_CONFIG = {
  workerLivenessSeconds: 30,
  workerConcurrency: 4,
  decisionPickupSeconds: 30,
  databaseUrl: null,
} as unknown as AppConfig;

export function heartbeatOn(ds: DataSource, config: AppConfig = TEST_WORKER_CONFIG): WorkerHeartbeat {
  return new WorkerHeartbeat(WorkerPresence.over(ds, config));
}

export interface HeartbeatRow {
  worker_id: string;
  name: string;
  started_at: Date;
  last_seen: Date;
  age: number;
}

/** The heartbeat rows, with `age` = seconds since last_seen (by the database clock). */
export function heartbeatRows(ds: DataSource): Promise<HeartbeatRow[]> {
  return ds.query(
    `SELECT worker_id, name, started_at, last_seen, extract(epoch FROM now() - last_seen)::float AS age
       FROM worker_heartbeat ORDER BY worker_id`,
  );
}

/** A heartbeat row last seen `ageSeconds` ago (another process's, dead or alive). */
export async function seedHeartbeat(
  ds: DataSource,
  ageSeconds: number,
  name = 'worker:elsewhere:1',
): Promise<string> {
  const id = randomUUID().replace(/-/g, '').slice(0, 16);
  await ds.query(
    `INSERT INTO worker_heartbeat (worker_id, name, started_at, last_seen)
     VALUES ($1, $2, now() - make_interval(secs => $3 + 60), now() - make_interval(secs => $3))`,
    [id, name, ageSeconds],
  );
  return id;
}

/** The demo-editor configuration and alice, for runs seeded straight into the table. */
export async function demoRefs(ds: DataSource): Promise<{ configurationId: number; ownerId: number }> {
  const [c]: Array<{ id: number }> = await ds.query(
    `SELECT id FROM configuration WHERE identifier = 'demo-editor'`,
  );
  const [u]: Array<{ id: number }> = await ds.query(`SELECT id FROM app_user WHERE username = 'alice'`);
  return { configurationId: c!.id, ownerId: u!.id };
}

/**
 * Inserts a run in a given state for counting: `status` plus the columns that matter to the
 * worker status (created_at, recorded_at, lease), set relative to the database's now().
 */
export async function seedRun(
  ds: DataSource,
  status: string,
  opts: { ageSeconds?: number; recordedSecondsAgo?: number; leaseSeconds?: number } = {},
): Promise<string> {
  const { configurationId, ownerId } = await demoRefs(ds);
  const id = randomUUID();
  await ds.query(
    `INSERT INTO run (id, configuration_id, owner_id, max_iterations, status, checkpoint, created_at,
       recorded_at, lease_token, lease_expires_at, claimed_by)
     VALUES ($1, $2, $3, 5, $4, 'not-a-real-checkpoint', now() - make_interval(secs => $5),
       CASE WHEN $6::float IS NULL THEN NULL ELSE now() - make_interval(secs => $6::float) END,
       CASE WHEN $7::float IS NULL THEN NULL ELSE gen_random_uuid() END,
       CASE WHEN $7::float IS NULL THEN NULL ELSE now() + make_interval(secs => $7::float) END,
       CASE WHEN $7::float IS NULL THEN NULL ELSE 'worker:elsewhere:1' END)`,
    [
      id,
      configurationId,
      ownerId,
      status,
      opts.ageSeconds ?? 0,
      opts.recordedSecondsAgo ?? null,
      opts.leaseSeconds ?? null,
    ],
  );
  return id;
}
