import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { WebhookDeliveries } from '../../webhooks';
import { PeriodicTask } from './periodic-task';

/**
 * Sends due webhooks every WEBHOOKS_POLL_MS, and at once when an outbox row committed in this
 * process. Every worker (process or in-process) runs one; SKIP LOCKED keeps them apart.
 * WorkerLifecycle starts and stops it.
 */
@Injectable()
export class WebhookDeliveryLoop {
  private readonly logger = new Logger(WebhookDeliveryLoop.name);
  private readonly task: PeriodicTask;
  private unlisten: (() => void) | null = null;

  constructor(
    private readonly deliveries: WebhookDeliveries,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.task = new PeriodicTask(
      config.webhooks.pollMs,
      () => this.deliveries.deliverDue(),
      (err) => this.logger.error({ err }, 'webhook delivery pass failed'),
    );
  }

  start(): void {
    this.unlisten = this.deliveries.onEnqueued(() => this.task.wake());
    this.task.start();
  }

  async stop(): Promise<void> {
    this.unlisten?.();
    this.unlisten = null;
    await this.task.stop();
  }
}
