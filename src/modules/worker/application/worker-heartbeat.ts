import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { WorkerPresence } from '../../runs';

/** How often a running worker refreshes its heartbeat row (idle too). */
export const HEARTBEAT_INTERVAL_MS = 10_000;
/** Rows not refreshed for a day were left by processes that died; the next start removes them. */
export const HEARTBEAT_PRUNE_SECONDS = 86_400;

/**
 * This process's presence as a worker (docs/decisions.md, "Workers and their heartbeat"):
 * a `worker_heartbeat` row under a random hex id, written at `start`, refreshed every 10 s
 * until `stop`, which deletes it. A worker that dies leaves its row behind; it stops counting
 * as live once `last_seen` is older than WORKER_LIVENESS_SECONDS.
 */
@Injectable()
export class WorkerHeartbeat {
  private readonly logger = new Logger(WorkerHeartbeat.name);
  /** Random hex, new for every process. */
  readonly workerId = randomBytes(8).toString('hex');
  private name: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly presence: WorkerPresence) {}

  /** True between `start` and `stop`. */
  get beating(): boolean {
    return this.timer !== null;
  }

  /**
   * Writes the row now (`name` says which process: `worker:<host>:<pid>` or
   * `api:<host>:<pid>`) and refreshes it every 10 s. A failed write is logged, not thrown: the
   * next beat retries, and the worker runs meanwhile.
   */
  async start(name: string): Promise<void> {
    if (this.timer) return;
    this.name = name;
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_INTERVAL_MS);
    // why: the interval alone must not keep a process alive that is otherwise done.
    this.timer.unref();
    await this.presence
      .pruneOlderThan(HEARTBEAT_PRUNE_SECONDS)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not prune old heartbeat rows'));
    await this.beat();
    this.logger.log(`worker ${this.workerId} (${name}) is live`);
  }

  /** Refreshes the row now (written anew if it went missing); a no-op once stopped. */
  async beat(): Promise<void> {
    if (!this.timer || !this.name) return;
    // why: one write at a time, so `stop` can wait for it and no beat lands after the delete.
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.presence
      .beat(this.workerId, this.name)
      .catch((err: unknown) => this.logger.warn({ err }, 'heartbeat write failed'))
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** Stops refreshing and deletes the row, so this process no longer counts as a live worker. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
    try {
      await this.presence.remove(this.workerId);
    } catch (err) {
      this.logger.warn({ err }, 'could not delete the heartbeat row; it goes stale on its own');
    }
  }

  /** How many workers are live now (heartbeat within WORKER_LIVENESS_SECONDS), this one included. */
  liveWorkers(): Promise<number> {
    return this.presence.liveWorkers();
  }
}
