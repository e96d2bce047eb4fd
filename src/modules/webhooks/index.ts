export { WebhooksModule } from './webhooks.module';
export { WebhookOutbox, type OutboxEvent } from './application/webhook-outbox';
export { WebhookDeliveries, DELIVERY_BATCH } from './application/webhook-deliveries';
export { WebhookEndpointsService, type EndpointWithSecret } from './application/webhook-endpoints.service';
export { DeliveryLog } from './application/delivery-log';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './core/event-types';
export type { DeliveryView, EndpointView } from './core/webhook-views';
export { OperatorWebhooks } from './application/operator-webhooks';
