import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { Metrics } from '../../../platform/metrics/metrics';
import { nextAttemptAt } from '../core/retry-policy';
import type { ClaimedDelivery } from '../core/webhook-views';
import {
  WebhookDeliveriesRepository,
  type AttemptOutcome,
} from '../persistence/webhook-deliveries.repository';
import { OutboxSignal } from './outbox-signal';
import { WebhookSender } from './webhook-sender';

/** Deliveries one pass takes; a full batch is followed by another pass at once. */
export const DELIVERY_BATCH = 50;

/**
 * The workers' half of the outbox: take due deliveries under a lease (longer than a request
 * may take, so a worker killed mid-request leaves them to be taken again: at least once),
 * send them, and record each try with what follows from it (done, retried later with backoff
 * and jitter, or failed once the retry window is over).
 */
@Injectable()
export class WebhookDeliveries {
  private readonly logger = new Logger(WebhookDeliveries.name);

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly transactions: TransactionRunner,
    private readonly signal: OutboxSignal,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Calls `wake` whenever an outbox row committed in this process. */
  onEnqueued(wake: () => void): () => void {
    return this.signal.listen(wake);
  }

  /** One pass: sends what is due; true when the batch was full (more may be waiting). */
  async deliverDue(): Promise<boolean> {
    // why: past the request's timeout with room to record it; a worker killed mid-request
    // leaves the delivery to be taken again once this lapses.
    const lease = 2 * this.config.webhooks.timeoutMs + 5_000;
    const claimed = await this.repository.claimDue(DELIVERY_BATCH, lease);
    await Promise.all(claimed.map((d) => this.deliver(d)));
    return claimed.length >= DELIVERY_BATCH;
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const result = await this.sender.send(delivery);
    const outcome = this.outcomeOf(delivery, result.ok);
    await this.transactions.run(() =>
      this.repository.recordAttempt(
        delivery.id,
        {
          attemptedAt: result.attemptedAt,
          statusCode: result.statusCode,
          error: result.error,
          durationMs: result.durationMs,
        },
        outcome,
      ),
    );
    const label =
      outcome.status === 'SUCCEEDED' ? 'succeeded' : outcome.status === 'FAILED' ? 'failed' : 'retried';
    this.metrics.webhookDelivered(label, (Date.now() - delivery.createdAt.getTime()) / 1000);
    if (outcome.status === 'FAILED') {
      this.logger.warn(
        { deliveryId: delivery.id, url: delivery.url, error: result.error },
        'webhook gave up',
      );
    }
  }

  private outcomeOf(delivery: ClaimedDelivery, ok: boolean): AttemptOutcome {
    if (ok) return { status: 'SUCCEEDED' };
    const w = this.config.webhooks;
    const next = nextAttemptAt(
      { baseDelayMs: w.retryBaseMs, maxDelayMs: w.retryMaxDelayMs, windowSeconds: w.retryWindowSeconds },
      delivery.attempts + 1,
      delivery.createdAt,
      new Date(),
    );
    return next ? { status: 'PENDING', nextAt: next } : { status: 'FAILED' };
  }
}
