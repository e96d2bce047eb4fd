import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ApprovalExpiry } from '../../approvals';
import { PeriodicTask } from './periodic-task';

/**
 * Settles approval waits past their deadline every APPROVAL_EXPIRY_INTERVAL_SECONDS, in every
 * instance (servers with or without a worker, worker processes): SKIP LOCKED shares the work
 * and settles each run once; PostgreSQL's clock decides what is due, so a deadline that
 * passed while no instance ran is settled by the first pass after a start. A full batch is
 * followed by the next at once. WorkerLifecycle starts it.
 */
@Injectable()
export class ExpirySweep {
  private readonly logger = new Logger(ExpirySweep.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly expiry: ApprovalExpiry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask(
      config.approvalExpiry.intervalSeconds * 1000,
      async () => (await this.sweepOnce()) >= config.approvalExpiry.batch,
      (err) => this.logger.error({ err }, 'expiry pass failed'),
    );
  }

  start(): void {
    this.task.start();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One pass; how many waits it settled. */
  sweepOnce(): Promise<number> {
    return this.expiry.sweepOnce(this.config.approvalExpiry.batch);
  }
}
