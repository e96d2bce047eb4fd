import { Injectable } from '@nestjs/common';
import { cursorTimestamp, decodeCursor, encodeCursor } from '../../../common/cursor';
import { badInput } from '../../../common/refusal';
import { parseUuid } from '../../../common/ids';
import type { RequestContext } from '../../../platform/auth/request-context';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationPagesRepository } from '../persistence/conversation-pages.repository';
import type { MessageEntity } from '../persistence/message.entity';
import { ConversationSync } from './conversation-sync';
import { pageSize } from '../../../common/page-size';

/** Largest page of conversations or messages a client may ask for. */
export const MAX_CHAT_PAGE = 200;

export interface Page<T> {
  readonly edges: ReadonlyArray<{ readonly cursor: string; readonly node: T }>;
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
}

/** Which part of a conversation's messages: Relay's forward (`first`/`after`) or backward (`last`/`before`). */
export interface MessageWindow {
  readonly first?: number | null;
  readonly after?: string | null;
  readonly last?: number | null;
  readonly before?: string | null;
}

const CONVERSATIONS = 'conversations';
const MESSAGES = 'messages';

/**
 * Cursor pages of the chat (docs/pagination.md): the viewer's conversations, most recently
 * active first, and a conversation's messages, oldest first forward or the latest ones
 * backward (`last`, what a chat window shows first, then `before` to scroll up).
 */
@Injectable()
export class ConversationPages {
  constructor(
    private readonly repository: ConversationPagesRepository,
    private readonly sync: ConversationSync,
  ) {}

  async conversations(
    ctx: RequestContext,
    first: number,
    after: string | null,
  ): Promise<Page<ConversationEntity>> {
    const key = after ? conversationKey(after) : null;
    const limit = pageSize(first, MAX_CHAT_PAGE);
    const rows = await this.repository.conversations(ctx.viewer.id, limit + 1, key);
    const shown = rows.slice(0, limit);
    const repaired = await Promise.all(shown.map((row) => this.sync.repair(row.conversation)));
    return {
      edges: shown.map((row, i) => ({
        cursor: encodeCursor(CONVERSATIONS, [row.at, row.conversation.id]),
        node: repaired[i]!,
      })),
      hasNextPage: rows.length > limit,
      hasPreviousPage: after !== null,
    };
  }

  /** A page of one conversation's messages (the caller checked the conversation is the viewer's). */
  async messages(conversationId: string, window: MessageWindow): Promise<Page<MessageEntity>> {
    const backward = window.last != null || window.before != null;
    if (backward && (window.first != null || window.after != null)) {
      throw badInput('Page forward (first, after) or backward (last, before), not both', { field: 'last' });
    }
    const cursor = backward ? window.before : window.after;
    const from = cursor ? messageKey(conversationId, cursor) : null;
    const limit = backward
      ? pageSize(window.last ?? 50, MAX_CHAT_PAGE, 'last')
      : pageSize(window.first ?? 50, MAX_CHAT_PAGE);
    const rows = await this.repository.messages(conversationId, limit + 1, from, !backward);
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    // why: a backward page is read newest first but shown in reading order, oldest first.
    if (backward) shown.reverse();
    return {
      edges: shown.map((m) => ({ cursor: encodeCursor(MESSAGES, [conversationId, Number(m.id)]), node: m })),
      hasNextPage: backward ? cursor != null : more,
      hasPreviousPage: backward ? more : cursor != null,
    };
  }
}

function conversationKey(cursor: string): { at: string; id: string } {
  const [at, id] = decodeCursor(CONVERSATIONS, cursor, ['string', 'string']);
  return { at: cursorTimestamp(at!), id: parseUuid(String(id), 'after') };
}

function messageKey(conversationId: string, cursor: string): number {
  const [conversation, id] = decodeCursor(MESSAGES, cursor, ['string', 'number']);
  if (conversation !== conversationId)
    throw badInput('The cursor belongs to another conversation', { field: 'after' });
  return Number(id);
}
