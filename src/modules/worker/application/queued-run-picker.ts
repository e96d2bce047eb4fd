import { Inject, Injectable, Logger } from '@nestjs/common';
import { hostname } from 'node:os';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RecordedDecisions } from '../../approvals';
import { QueuedRuns, RunExecutor, type QueuedClaim } from '../../runs';
import { PeriodicTask } from './periodic-task';

/** The fallback poll; `wake()` starts a pass at once. */
export const PICKUP_POLL_MS = 1000;

/**
 * The worker's pickup: each pass claims recorded decisions (RecordedDecisions, DECISION_RECORDED
 * -> RUNNING) and QUEUED runs (`FOR UPDATE SKIP LOCKED`, oldest first) and executes them in
 * this process through the RunExecutor, never more than WORKER_CONCURRENCY segments at once
 * (inline continuations of this process included). Polls every second and runs a pass at once
 * when woken (new work signalled, a requeue by the reaper, a freed slot). A claimed run whose
 * checkpoint cannot be used is settled FAILED / NOT_RETRYABLE under the lease just taken.
 * WorkerLifecycle starts and stops it.
 */
@Injectable()
export class QueuedRunPicker {
  private readonly logger = new Logger(QueuedRunPicker.name);
  /** Segments launched here that have not ended, by lease token (one per claim). */
  private readonly active = new Map<string, Promise<void>>();
  private readonly task: PeriodicTask;
  readonly workerId = `worker:${hostname()}:${process.pid}`;

  constructor(
    private readonly queued: QueuedRuns,
    private readonly executor: RunExecutor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly decisions: RecordedDecisions,
  ) {
    this.task = new PeriodicTask(
      PICKUP_POLL_MS,
      () => this.pickOnce(),
      (err) => this.logger.error({ err }, 'queued-run pickup failed'),
    );
  }

  /** Starts polling, with a first pass at once. */
  start(): void {
    this.task.start();
  }

  /** Stops claiming; resolves once the pass in progress (if any) has ended. */
  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** Looks for work now instead of at the next poll (no-op while stopped). */
  wake(): void {
    this.task.wake();
  }

  /** How many segments this picker launched are still executing. */
  get running(): number {
    return this.active.size;
  }

  /**
   * Runs to claim: WORKER_CONCURRENCY and WORKER_PREFETCH less the segments this process holds
   * (executing, or claimed and waiting for a slot: the executor starts them as slots free).
   */
  private freeSlots(): number {
    return this.config.workerConcurrency + this.config.workerPrefetch - this.executor.activeCount();
  }

  /**
   * One pass: recorded decisions first, then queued runs, as many as there are free slots, each
   * launched here. Resolves true when every free slot was filled, so more work may be waiting.
   */
  async pickOnce(): Promise<boolean> {
    const free = this.freeSlots();
    if (free <= 0) return false;
    // why: a decided run has a person waiting for its continuation; it goes before new starts.
    let decided = 0;
    try {
      const taken = await this.decisions.pickUp(this.workerId, free);
      // why: a slot freed by a decision's continuation wakes the picker as a queued run's does;
      // otherwise a pass that found every slot busy waits for the next poll.
      for (const claim of taken) this.track(claim.lease.token, this.executor.settled(claim.run.id));
      decided = taken.length;
    } catch (err) {
      this.logger.error({ err }, 'recorded-decision pickup failed');
    }
    const left = Math.min(free - decided, this.freeSlots());
    if (left <= 0) return decided >= free;
    const claimed = await this.queued.claim(this.workerId, left);
    for (const claim of claimed) {
      try {
        await this.begin(claim);
      } catch (err) {
        // why: the claim stays RUNNING under a lease nobody renews; the reaper requeues it.
        this.logger.error({ runId: claim.run.id, err }, 'could not start a claimed run');
      }
    }
    return claimed.length === left;
  }

  private async begin(claim: QueuedClaim): Promise<void> {
    const begun = await this.queued.begin(claim);
    if (begun === 'failed') {
      this.logger.warn({ runId: claim.run.id }, 'claimed run failed: its checkpoint cannot be used');
      return;
    }
    // why: a requeued decision goes back through the decision layer, which records the
    // APPROVAL / INPUT step if the cut-off process never did.
    if (begun === 'decided') await this.decisions.resume(claim);
    // why: `settled` reads the executor's in-flight entry synchronously, so this is the
    // segment just launched even if an older segment of the same run is still winding down.
    this.track(claim.lease.token, this.executor.settled(claim.run.id));
  }

  private track(token: string, done: Promise<void>): void {
    const tracked = done
      .catch(() => undefined)
      .finally(() => {
        this.active.delete(token);
        this.wake();
      });
    this.active.set(token, tracked);
  }
}
