/** A conversation's status (docs/chat-and-skills.md "Conversation status"). */
export const CONVERSATION_STATUSES = [
  'IDLE',
  'PROCESSING',
  'AWAITING_APPROVAL',
  'AWAITING_INPUT',
  'FAILED',
] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export const MESSAGE_ROLES = ['USER', 'ASSISTANT', 'NOTICE'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** Statuses a new turn may start from (a failed turn may be followed by another). */
export const TURN_START_STATUSES: readonly ConversationStatus[] = ['IDLE', 'FAILED'];

/** The conversation status that mirrors a run's status, for the run the conversation is on. */
export function statusForRun(runStatus: string): ConversationStatus {
  switch (runStatus) {
    case 'WAITING_FOR_APPROVAL':
      return 'AWAITING_APPROVAL';
    case 'WAITING_FOR_INPUT':
      return 'AWAITING_INPUT';
    case 'QUEUED':
    case 'RUNNING':
    case 'DECISION_RECORDED':
      return 'PROCESSING';
    case 'FAILED':
      return 'FAILED';
    default:
      return 'IDLE';
  }
}

/** How long a PROCESSING conversation whose run does not move is kept before it is failed. */
export const STUCK_AFTER_MS = 5 * 60 * 1000;
