import { Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals';
import { AuthModule } from '../auth';
import { RunsModule } from '../runs';
import { DeliveryLog } from './application/delivery-log';
import { EnabledEndpoints } from './application/enabled-endpoints';
import { OutboxSignal } from './application/outbox-signal';
import { RunWebhooks } from './application/run-webhooks';
import { UrlGuard } from './application/url-guard';
import { WebhookDeliveries } from './application/webhook-deliveries';
import { WebhookEndpointsService } from './application/webhook-endpoints.service';
import { WebhookOutbox } from './application/webhook-outbox';
import { WebhookSender } from './application/webhook-sender';
import { WebhookDeliveriesResolver } from './graphql/webhook-deliveries.resolver';
import { WebhookEndpointsResolver } from './graphql/webhook-endpoints.resolver';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './persistence/webhook-endpoints.repository';

/**
 * Signed webhooks from a transactional outbox (docs/webhooks.md): the admin API, the events
 * (RunWebhooks, told inside the settle's and the decision's transactions), and the delivery
 * the worker module runs (WebhookDeliveries).
 */
@Module({
  imports: [AuthModule, RunsModule, ApprovalsModule],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    EnabledEndpoints,
    OutboxSignal,
    WebhookOutbox,
    RunWebhooks,
    UrlGuard,
    WebhookSender,
    WebhookDeliveries,
    WebhookEndpointsService,
    DeliveryLog,
    WebhookEndpointsResolver,
    WebhookDeliveriesResolver,
  ],
  exports: [WebhookOutbox, WebhookDeliveries, WebhookEndpointsService, DeliveryLog],
})
export class WebhooksModule {}
