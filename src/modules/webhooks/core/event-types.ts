/**
 * The events an endpoint may subscribe to, by their wire name (the payload's `type`). A new
 * event is one more name here, its GraphQL enum value in graphql/webhook.model.ts, and one
 * `WebhookOutbox.record` call inside the transaction that makes the change it reports.
 */
export const WEBHOOK_EVENT_TYPES = [
  'run.waiting',
  'decision.recorded',
  'run.settled',
  'run.expired',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The GraphQL enum value of a wire name: `run.waiting` -> `RUN_WAITING`. */
export function enumNameOf(type: WebhookEventType): string {
  return type.replace('.', '_').toUpperCase();
}

/** The wire name of a GraphQL enum value, or null when it names no event. */
export function eventTypeOf(enumName: string): WebhookEventType | null {
  return WEBHOOK_EVENT_TYPES.find((t) => enumNameOf(t) === enumName) ?? null;
}
