import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseUuid } from '../../../common/ids';
import { forbidden, notFound } from '../../../common/refusal';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository } from '../persistence/conversations.repository';
import type { MessageEntity } from '../persistence/message.entity';
import { ConversationEvents } from './conversation-events';
import { ConversationSync } from './conversation-sync';

/** Conversations `conversations` lists at most. */
export const LIST_LIMIT = 200;

/**
 * Reading conversations: the viewer's list, one conversation, their messages and live events,
 * and the ownership check every change in a conversation starts with. A conversation a turn
 * left stuck is repaired as it is read (ConversationSync).
 */
@Injectable()
export class ConversationReads {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly events: ConversationEvents,
    private readonly sync: ConversationSync,
  ) {}

  /** The viewer's conversations (repaired where stuck), most recent first. */
  async list(ctx: RequestContext): Promise<ConversationEntity[]> {
    const rows = await this.repository.listForOwner(ctx.viewer.id, LIST_LIMIT);
    return Promise.all(rows.map((c) => this.sync.repair(c)));
  }

  /** The conversation where the viewer owns it (admins: any); null otherwise. */
  async find(ctx: RequestContext, id: string): Promise<ConversationEntity | null> {
    const row = await this.repository.findById(parseUuid(id, 'id'));
    if (!row || (row.ownerId !== ctx.viewer.id && !ctx.viewer.isAdmin)) return null;
    return this.sync.repair(row);
  }

  /** Messages of conversations, oldest first. */
  async messagesOf(ids: readonly string[]): Promise<Map<string, MessageEntity[]>> {
    return this.repository.messagesOf(ids);
  }

  /** The live events of the viewer's own conversation. */
  async openEvents(ctx: RequestContext, conversationId: string) {
    const conversation = await this.own(ctx, conversationId);
    return this.events.open(ctx.viewer, conversation);
  }

  /** The viewer's own conversation; NOT_FOUND for anyone else's (no leak). */
  async own(ctx: RequestContext, id: string): Promise<ConversationEntity> {
    const row = await this.repository.findById(parseUuid(id, 'conversationId'));
    // why: an admin may read any conversation, so knows it exists; acting in it stays the owner's.
    if (!row || (row.ownerId !== ctx.viewer.id && !ctx.viewer.isAdmin))
      throw notFound('Conversation not found');
    if (row.ownerId !== ctx.viewer.id) throw forbidden('Only its owner acts in a conversation');
    return row;
  }

  /** A conversation known to exist (read again after a change). */
  async require(id: string): Promise<ConversationEntity> {
    const row = await this.repository.findById(id);
    if (!row) throw new Error(`conversation ${id} vanished`);
    return row;
  }
}
