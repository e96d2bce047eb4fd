import { renderNotice } from '../core/notices';
import type { MessagePayload } from '../application/conversation-events';
import type { ConversationView, MessageView } from '../core/conversation-view';
import {
  ConversationModel,
  ConversationStatusEnum,
  MessageModel,
  MessageRoleEnum,
} from './conversation.model';

export const CONVERSATION_ROW = Symbol('conversationRow');
export type ConversationModelWithRow = ConversationModel & { [CONVERSATION_ROW]: ConversationView };

export function toConversationModel(c: ConversationView): ConversationModelWithRow {
  const waiting = c.status === 'AWAITING_APPROVAL' || c.status === 'AWAITING_INPUT';
  return {
    id: c.id,
    title: c.title,
    status: c.status as ConversationStatusEnum,
    viewContext: {
      pageId: c.viewPageId === null ? null : String(c.viewPageId),
      languageId: c.viewPageId === null ? null : c.viewLanguageId,
      module: c.viewModule,
    },
    skill: c.skillIdentifier
      ? {
          identifier: c.skillIdentifier,
          skillId: c.skillId === null ? null : String(c.skillId),
          isProcess: c.skillIsProcess,
          startPending: c.skillIsProcess && c.skillStartPending,
        }
      : null,
    lastRunId: c.lastRunId,
    approvalRunId: waiting ? c.activeRunId : null,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    [CONVERSATION_ROW]: c,
  };
}

export function conversationRowOf(model: ConversationModel): ConversationView {
  const row = (model as Partial<ConversationModelWithRow>)[CONVERSATION_ROW];
  if (!row) throw new Error('conversation model without its row');
  return row;
}

/** A message for a reader: a NOTICE rendered in the reader's locale. */
export function toMessageModel(m: MessageView | MessagePayload, locale: string): MessageModel {
  return {
    id: String(m.id),
    role: m.role as MessageRoleEnum,
    text: m.role === 'NOTICE' && m.notice ? renderNotice(m.notice, m.noticeArgs, locale) : m.text,
    notice: m.notice,
    noticeArgs: m.noticeArgs,
    runId: m.runId,
    createdAt: new Date(m.createdAt),
  };
}
