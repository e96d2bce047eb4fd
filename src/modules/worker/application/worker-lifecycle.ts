import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { hostname } from 'node:os';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { EventBus, type Unsubscribe } from '../../../platform/pubsub/event-bus';
import { WORK_TOPIC } from '../../runs';
import { DecisionReconciler } from './decision-reconciler';
import { QueuedRunPicker } from './queued-run-picker';
import { ReaperService } from './reaper.service';
import { RetentionSweep } from './retention-sweep';
import { ExpirySweep } from './expiry-sweep';
import { WorkerHeartbeat } from './worker-heartbeat';
import { WebhookDeliveryLoop } from './webhook-delivery-loop';
import { WorkListener } from './work-listener';

/** Which process hosts the worker: a worker process (`npm run start:worker`) or a server. */
export type WorkerProcessKind = 'api' | 'worker';
/** Injection token of the WorkerProcessKind; absent means `api`. */
export const WORKER_PROCESS_KIND = Symbol('WORKER_PROCESS_KIND');

/**
 * Starts and stops the worker of this process in a safe order. With WORKER_ENABLED (the
 * default): the heartbeat row first (this process is a live worker), then the wake-ups
 * (PostgreSQL LISTEN, and the event bus while LISTEN is not in effect), the pickup, the reaper, the retention sweep and the webhook
 * deliveries. With WORKER_ENABLED=false (an API-only instance): only the reconcile of overdue
 * recorded decisions. The expiry sweep of approval deadlines runs in both. On shutdown it stops
 * claiming, then deletes the heartbeat; the segments still executing end afterwards in
 * RunExecutor's shutdown hook (Nest runs every `beforeApplicationShutdown` before any
 * `onApplicationShutdown`).
 */
@Injectable()
export class WorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerLifecycle.name);
  private subscription: Promise<Unsubscribe | null> | null = null;
  readonly processName: string;

  constructor(
    private readonly heartbeat: WorkerHeartbeat,
    private readonly picker: QueuedRunPicker,
    private readonly reaper: ReaperService,
    private readonly retention: RetentionSweep,
    private readonly expiry: ExpirySweep,
    private readonly reconciler: DecisionReconciler,
    private readonly listener: WorkListener,
    private readonly webhooks: WebhookDeliveryLoop,
    private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(WORKER_PROCESS_KIND) kind: WorkerProcessKind | null,
  ) {
    this.processName = `${kind ?? 'api'}:${hostname()}:${process.pid}`;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.workerEnabled) {
      this.reconciler.start();
      // why: every instance sweeps deadlines, so a deployment without workers still settles them.
      this.expiry.start();
      return;
    }
    await this.heartbeat.start(this.processName);
    // why: not awaited: with Redis down the subscription would hold the start-up; the poll
    // covers the wake-ups meanwhile.
    // why only while LISTEN is down (or never up: PGlite): on PostgreSQL the statement that
    // writes the work notifies LISTENing workers itself, and the bus carries the same news a
    // moment later; a worker woken by both ran a second, empty pickup pass (two more claims)
    // beside the first steps of the run it had just started.
    this.subscription = this.bus
      .subscribe(WORK_TOPIC, () => {
        if (!this.listener.listening) this.picker.wake();
      })
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'could not subscribe to work signals; polling only');
        return null;
      });
    this.listener.start(() => this.picker.wake());
    this.picker.start();
    this.reaper.start();
    this.retention.start();
    this.webhooks.start();
    this.expiry.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    // why: stop claiming before leaving the live set, so no new work is taken on here while
    // the API instances still send work to this worker; in-flight segments finish later.
    await Promise.all([
      this.picker.stop(),
      this.reaper.stop(),
      this.retention.stop(),
      this.expiry.stop(),
      this.reconciler.stop(),
      this.listener.stop(),
      this.webhooks.stop(),
    ]);
    const subscription = this.subscription;
    this.subscription = null;
    void subscription?.then((unsubscribe) => unsubscribe?.());
    await this.heartbeat.stop();
  }
}
