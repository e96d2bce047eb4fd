export { ConversationsModule } from './conversations.module';
export { ConversationsService } from './application/conversations.service';
export { ConversationSync } from './application/conversation-sync';
export { renderNotice, NOTICES, type Notice } from './core/notices';
