export { ConversationsModule } from './conversations.module';
export { ConversationSync } from './application/conversation-sync';
export { renderNotice, NOTICES, type Notice } from './core/notices';
