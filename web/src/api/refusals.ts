import type { ErrorCode } from './generated';

/** The codes the client makes up itself: the server cannot be reached, the live connection is gone. */
export type ClientErrorCode = 'NETWORK' | 'LIVE_CONNECTION_LOST';

/**
 * A readable sentence for every `extensions.code` of the contract's ErrorCode (the type
 * generated from schema.gql, so a new code fails `npm run check` until it has a sentence here),
 * and for the client's own NETWORK and LIVE_CONNECTION_LOST. The server's own message is for
 * developers; a person reads these.
 */
export const REFUSAL_MESSAGES: Readonly<Record<ErrorCode | ClientErrorCode, string>> = {
  UNAUTHENTICATED: 'This token is not valid (unknown, revoked or expired). Sign in again.',
  FORBIDDEN: 'You may not do this.',
  NOT_FOUND: 'This no longer exists, or you may not see it.',
  BAD_USER_INPUT: 'The request was not understood. Reload the page and try again.',
  RATE_LIMITED: 'Too many requests. Wait a moment and try again.',
  INTERNAL_SERVER_ERROR: 'Something went wrong on the server. Try again later.',
  RUN_NOT_WAITING: 'This run no longer waits for this decision: it was decided or has finished. Reload.',
  PROCESS_RUN_DECIDED_IN_CHAT:
    'This is a guided process: only the person who started it decides, in the chat.',
  CONFIGURATION_GONE: 'The configuration of this run was deleted; it cannot continue.',
  CONFIGURATION_INACTIVE: 'The configuration of this run is switched off; ask an admin to switch it on.',
  SELF_APPROVAL_DENIED:
    'Someone else must approve: this run needs a second person (four-eyes rule). You may still deny it.',
  PROCESS_STOPPED_SECOND_APPROVER:
    'This process was stopped: its configuration now needs a second approver, which a process cannot have.',
  STATE_UNREADABLE: 'The saved state of this run cannot be read. Ask an admin.',
  ALREADY_RESUMING: 'Someone else decided this run a moment ago.',
  STALE_TURN: 'This proposal changed, reload.',
  APPROVER_NOT_PERMITTED: 'You may not approve this: it changes something you are not allowed to edit.',
  SUBMITTER_NOT_PERMITTED: 'You may not answer this: it does something you are not allowed to do.',
  NOT_AUDITABLE: 'The approval could not be recorded, so nothing was done. Try again.',
  INVALID_INPUT: 'Some answers are not valid; check the marked fields.',
  IDEMPOTENCY_KEY_REUSED: 'This click was already used for another decision. Reload.',
  APPROVAL_EXPIRED: 'Too late: the deadline for this decision has passed.',
  ALREADY_VOTED: 'You already approved this proposal; it waits for the other approvers.',
  CHAT_NOT_ALLOWED: 'You may not use the chat.',
  PAGE_NOT_ACCESSIBLE: 'You may not open this page.',
  LANGUAGE_NOT_ACCESSIBLE: 'You may not work in this language on this page.',
  SKILL_UNKNOWN: 'This skill is not available to you.',
  SKILL_SECOND_APPROVER: 'This process skill cannot be used here: your chat needs a second approver.',
  CONVERSATION_BUSY: 'The assistant is still working on this conversation. Wait for it to finish.',
  NOT_AWAITING_APPROVAL: 'This conversation no longer waits for an approval. Reload.',
  NOT_AWAITING_INPUT: 'This conversation no longer waits for an answer. Reload.',
  APPROVAL_STILL_PENDING: 'Decide the pending proposal before you write again.',
  DECISION_IN_FLIGHT: 'Your decision is being carried out. Wait a moment.',
  TOO_MANY_CONVERSATIONS: 'You have too many conversations open. Archive some first.',
  TOO_MANY_WAITING_RUNS: 'You have too many runs open. Decide or cancel some before starting another.',
  SKILL_VERSION_NOT_DRAFT: 'This skill version was already approved or withdrawn.',
  SKILL_VERSION_WITHDRAWN: 'This skill version was withdrawn and can no longer be used.',
  WEBHOOK_URL_NOT_ALLOWED:
    'This webhook URL points at a private or local address (or does not resolve), so it cannot be used.',
  NETWORK: 'The server cannot be reached. Check the connection and try again.',
  LIVE_CONNECTION_LOST: 'Live connection lost: updates have stopped. Reload the page to reconnect.',
};

const isKnown = (code: string): code is ErrorCode | ClientErrorCode => Object.hasOwn(REFUSAL_MESSAGES, code);

/**
 * The readable message for a code; a generic sentence for a code this client does not know (a
 * newer server's, or a hand-back nobody recognises).
 */
export function refusalMessage(code: string): string {
  return isKnown(code) ? REFUSAL_MESSAGES[code] : `The server refused this (${code}).`;
}
