/**
 * The one registry of error codes a client can see in `extensions.code`: exactly the
 * schema's `ErrorCode` enum (generated into schema.gql; a unit test compares the two).
 */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'RATE_LIMITED',
  'INTERNAL_SERVER_ERROR',
  'RUN_NOT_WAITING',
  'PROCESS_RUN_DECIDED_IN_CHAT',
  'CONFIGURATION_GONE',
  'CONFIGURATION_INACTIVE',
  'SELF_APPROVAL_DENIED',
  'PROCESS_STOPPED_SECOND_APPROVER',
  'STATE_UNREADABLE',
  'ALREADY_RESUMING',
  'STALE_TURN',
  'APPROVER_NOT_PERMITTED',
  'SUBMITTER_NOT_PERMITTED',
  'NOT_AUDITABLE',
  'INVALID_INPUT',
  'IDEMPOTENCY_KEY_REUSED',
  'APPROVAL_EXPIRED',
  'ALREADY_VOTED',
  'CHAT_NOT_ALLOWED',
  'PAGE_NOT_ACCESSIBLE',
  'LANGUAGE_NOT_ACCESSIBLE',
  'SKILL_UNKNOWN',
  'SKILL_SECOND_APPROVER',
  'CONVERSATION_BUSY',
  'NOT_AWAITING_APPROVAL',
  'NOT_AWAITING_INPUT',
  'APPROVAL_STILL_PENDING',
  'DECISION_IN_FLIGHT',
  'TOO_MANY_CONVERSATIONS',
  'TOO_MANY_WAITING_RUNS',
  'SKILL_VERSION_NOT_DRAFT',
  'SKILL_VERSION_WITHDRAWN',
  'WEBHOOK_URL_NOT_ALLOWED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes whose refusal a client may simply try again later. */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'RATE_LIMITED',
  'ALREADY_RESUMING',
  'CONVERSATION_BUSY',
  'DECISION_IN_FLIGHT',
]);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
