import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RunSettler, type ReapedRun } from '../../runs';
import { PeriodicTask } from './periodic-task';
import { QueuedRunPicker } from './queued-run-picker';

/** At most this many runs per statement; a full batch is followed by another at once. */
export const REAP_BATCH = 100;

/** What the trace tells of a run the reaper failed: the message stored on the run. */
export function reapedMessage(run: Pick<ReapedRun, 'errorMessage'>): string {
  return run.errorMessage ?? 'The run was stopped by the reaper: its process lost the lease';
}

/**
 * Every REAPER_INTERVAL_SECONDS, takes the runs whose lease expired and applies the reaper's rule
 * (runs/core/reap-rule.ts, docs/run-lifecycle.md): a run without a pending effect, or whose
 * transactional effect never committed, is requeued (the picker is woken to continue it at
 * once), up to three times, then failed RETRIES_EXHAUSTED; a run whose effect committed
 * (applied) or is external fails NOT_RETRYABLE. The failures are published (TERMINAL ERROR and
 * SETTLED) after their UPDATE committed. WorkerLifecycle starts and stops it.
 */
@Injectable()
export class ReaperService {
  private readonly logger = new Logger(ReaperService.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly settler: RunSettler,
    private readonly picker: QueuedRunPicker,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.task = new PeriodicTask(
      config.reaperIntervalSeconds * 1000,
      async () => (await this.reapOnce()).length >= REAP_BATCH,
      (err) => this.logger.error({ err }, 'reaper pass failed'),
    );
  }

  start(): void {
    this.task.start();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One pass of the reaper; returns what it did to each run it took. */
  async reapOnce(): Promise<ReapedRun[]> {
    const reaped = await this.settler.reap(REAP_BATCH, reapedMessage);
    if (reaped.length === 0) return reaped;
    this.logger.warn({ runs: reaped }, `reaped ${reaped.length} run(s) with an expired lease`);
    if (reaped.some((r) => r.status === 'QUEUED')) this.picker.wake();
    return reaped;
  }
}
