/** The webhook API's documents and what the webhooks*.e2e-spec.ts suites share (docs/webhooks.md). */

export const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) {
  secret endpoint { id url eventTypes enabled } } }`;
export const UPDATE = `mutation($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) {
  id enabled eventTypes } }`;
export const ROTATE = `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { id } } }`;
export const DELETE = `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`;
export const LIST = `query($first: Int, $after: String) { webhookEndpoints(first: $first, after: $after) {
  nodes { id url enabled } pageInfo { hasNextPage endCursor } } }`;
export const DELIVERIES = `query($endpointId: ID, $eventId: ID, $first: Int, $after: String) {
  webhookDeliveries(endpointId: $endpointId, eventId: $eventId, first: $first, after: $after) {
    nodes { id eventId eventType runId status replayOf attempts { statusCode error durationMs } }
    pageInfo { hasNextPage endCursor } } }`;
export const REPLAY = `mutation($id: ID!) { replayWebhookDelivery(id: $id) { id eventId status replayOf } }`;

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  runId: string | null;
  status: string;
  replayOf: string | null;
  attempts: Array<{ statusCode: number | null; error: string | null; durationMs: number }>;
}

export const ALL_EVENTS = ['RUN_WAITING', 'DECISION_RECORDED', 'RUN_SETTLED', 'RUN_EXPIRED'];
