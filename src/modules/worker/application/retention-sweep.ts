import { Injectable, Logger } from '@nestjs/common';
import { RunRetention, type RetentionPass } from '../../runs';
import { PeriodicTask } from './periodic-task';

/**
 * Runs the retention sweep every RETENTION_INTERVAL_SECONDS where retention is configured; a
 * full batch is followed by the next at once until the backlog is gone. Every instance with a
 * worker sweeps; SKIP LOCKED in the statements shares the work. WorkerLifecycle starts it.
 */
@Injectable()
export class RetentionSweep {
  private readonly logger = new Logger(RetentionSweep.name);
  private readonly task: PeriodicTask;

  constructor(private readonly retention: RunRetention) {
    this.task = new PeriodicTask(
      retention.intervalSeconds * 1000,
      async () => (await this.sweepOnce()).more,
      (err) => this.logger.error({ err }, 'retention pass failed'),
    );
  }

  start(): void {
    if (this.retention.enabled) this.task.start();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  sweepOnce(): Promise<RetentionPass> {
    return this.retention.sweepOnce();
  }
}
