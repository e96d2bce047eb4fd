import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RecordedDecisions } from '../../approvals';
import { QueuedRuns, RunExecutor } from '../../runs';
import { PeriodicTask } from './periodic-task';
import { WorkerHeartbeat } from './worker-heartbeat';

/** The reconcile pass runs this often at most (and at least every DECISION_PICKUP_SECONDS). */
export const RECONCILE_MAX_INTERVAL_SECONDS = 5;

/**
 * The reconcile of an API-only instance (WORKER_ENABLED=false; docs/decisions.md, "Two
 * paths, one claim"): while no worker is live, it picks up decisions recorded at least
 * DECISION_PICKUP_SECONDS ago (the same SKIP LOCKED claim a worker makes) and continues them
 * here, so no recorded decision waits forever for a worker that is gone. Queued runs (chat
 * turns queued while a worker was live, or while this instance was full; requeued runs) queued
 * at least as long ago are taken the same way, with the slots left.
 */
@Injectable()
export class DecisionReconciler {
  private readonly logger = new Logger(DecisionReconciler.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly decisions: RecordedDecisions,
    private readonly executor: RunExecutor,
    private readonly heartbeat: WorkerHeartbeat,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queued: QueuedRuns,
  ) {
    const seconds = Math.max(1, Math.min(RECONCILE_MAX_INTERVAL_SECONDS, config.decisionPickupSeconds));
    this.task = new PeriodicTask(
      seconds * 1000,
      () => this.reconcileOnce(),
      (err) => this.logger.error({ err }, 'decision reconcile failed'),
    );
  }

  start(): void {
    this.task.start();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  /**
   * One pass: nothing while a worker is live; else claims up to the free slots of this
   * instance among the overdue recorded decisions. Resolves true when it filled every slot.
   */
  async reconcileOnce(): Promise<boolean> {
    const free = this.config.workerConcurrency - this.executor.activeCount();
    if (free <= 0) return false;
    if ((await this.heartbeat.liveWorkers()) > 0) return false;
    const taken = (
      await this.decisions.pickUp(this.executor.instanceId, free, this.config.decisionPickupSeconds)
    ).length;
    if (taken > 0) this.logger.warn(`no live worker: took ${taken} overdue recorded decision(s) here`);
    const left = Math.min(free - taken, this.config.workerConcurrency - this.executor.activeCount());
    const claimed =
      left > 0
        ? await this.queued.claim(this.executor.instanceId, left, this.config.decisionPickupSeconds)
        : [];
    for (const claim of claimed) {
      try {
        if ((await this.queued.begin(claim)) === 'decided') await this.decisions.resume(claim);
      } catch (err) {
        // why: the claim stays RUNNING under a lease nobody renews; the reaper requeues it.
        this.logger.error({ runId: claim.run.id, err }, 'could not start a claimed run');
      }
    }
    if (claimed.length > 0) this.logger.warn(`no live worker: took ${claimed.length} queued run(s) here`);
    return taken + claimed.length >= free;
  }
}
