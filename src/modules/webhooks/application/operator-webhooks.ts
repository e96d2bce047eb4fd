import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/app-config';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { WebhookDeliveriesRepository } from '../persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../persistence/webhook-endpoints.repository';
import { DeliveryLog } from './delivery-log';
import { EnabledEndpoints } from './enabled-endpoints';
import { OutboxSignal } from './outbox-signal';
import { UrlGuard } from './url-guard';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/**
 * The webhook commands' use cases: the admin API's own services (the same checks, the SSRF
 * guard included), over a data source of their own outside the Nest container, called as the
 * system (the command line).
 */
export class OperatorWebhooks {
  private constructor(
    readonly endpoints: WebhookEndpointsService,
    readonly deliveries: DeliveryLog,
  ) {}

  static over(dataSource: DataSource, config: AppConfig): OperatorWebhooks {
    const endpoints = new WebhookEndpointsRepository(dataSource);
    const transactions = new TransactionRunner(dataSource);
    return new OperatorWebhooks(
      new WebhookEndpointsService(
        endpoints,
        new UrlGuard(config),
        transactions,
        new EnabledEndpoints(endpoints, config),
      ),
      new DeliveryLog(new WebhookDeliveriesRepository(dataSource), transactions, new OutboxSignal()),
    );
  }
}
