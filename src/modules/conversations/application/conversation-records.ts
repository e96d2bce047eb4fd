import type { ConversationEntity } from '../persistence/conversation.entity';
import type { MessageEntity } from '../persistence/message.entity';

/** A conversation as the application layer hands it to the transport (the stored row). */
export type ConversationRecord = ConversationEntity;
/** A stored message as the application layer hands it to the transport. */
export type MessageRecord = MessageEntity;
