import { enumNameOf, eventTypeOf, type WebhookEventType } from '../core/event-types';
import type { DeliveryView, EndpointView } from '../core/webhook-views';
import {
  WebhookDeliveryStatusEnum,
  type WebhookDeliveryModel,
  type WebhookEndpointModel,
} from './webhook.model';

export function toEndpointModel(e: EndpointView): WebhookEndpointModel {
  return { ...e, eventTypes: e.eventTypes.map(enumNameOf) };
}

export function toDeliveryModel(d: DeliveryView): WebhookDeliveryModel {
  return {
    ...d,
    eventType: enumNameOf(d.eventType),
    status: d.status as WebhookDeliveryStatusEnum,
    attempts: [...d.attempts],
  };
}

/** The wire names of GraphQL enum values (validated by the input already). */
export function wireTypes(names: readonly string[]): WebhookEventType[] {
  return names.map((n) => eventTypeOf(n)).filter((t): t is WebhookEventType => t !== null);
}
