import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A worker's heartbeat: written when it starts, every 10 s while it runs (idle too), deleted
 * when it stops. A worker is live while `last_seen` is within WORKER_LIVENESS_SECONDS.
 */
@Entity({ name: 'worker_heartbeat' })
export class WorkerHeartbeatEntity {
  /** Random hex, new for every worker process. */
  @PrimaryColumn({ name: 'worker_id', type: 'varchar', length: 64 })
  workerId: string;

  /** `worker:<host>:<pid>` or `api:<host>:<pid>` for an in-process worker. */
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'started_at', type: 'timestamptz', default: () => 'now()' })
  startedAt: Date;

  @Column({ name: 'last_seen', type: 'timestamptz', default: () => 'now()' })
  lastSeen: Date;
}
