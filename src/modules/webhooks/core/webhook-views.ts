import type { WebhookEventType } from './event-types';
import { actsAsAdministrator } from '../../../common/administration';

/** An endpoint as admins see it (never its secret, which is shown once). */
export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly eventTypes: readonly WebhookEventType[];
  readonly enabled: boolean;
  readonly description: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One try of a delivery. */
export interface AttemptView {
  readonly attemptedAt: Date;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** One event for one endpoint, with every try so far. */
export interface DeliveryView {
  readonly id: string;
  readonly seq: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: WebhookEventType;
  readonly runId: string | null;
  readonly payload: unknown;
  readonly status: DeliveryStatus;
  readonly attempts: readonly AttemptView[];
  readonly nextAttemptAt: Date | null;
  readonly replayOf: string | null;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

/** A delivery a worker took under its lease: what it needs to send it. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: WebhookEventType;
  readonly payload: unknown;
  readonly attempts: number;
  readonly createdAt: Date;
  readonly url: string;
  readonly secret: string;
}

/** One cursor page as the application layer answers it. */
export interface Page<T> {
  readonly edges: ReadonlyArray<{ readonly cursor: string; readonly node: T }>;
  readonly hasNextPage: boolean;
}

/**
 * Only admins manage webhooks and read their deliveries (payloads name runs and approvers);
 * null is the command line, run by whoever operates the database.
 */
export function mayManageWebhooks(user: { readonly isAdmin: boolean } | null): boolean {
  return actsAsAdministrator(user);
}
