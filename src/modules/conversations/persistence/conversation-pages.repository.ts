import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { ConversationEntity } from './conversation.entity';
import { MessageEntity } from './message.entity';

/** A conversation of a page with the exact `updated_at` a cursor after it encodes. */
export interface KeyedConversation {
  readonly conversation: ConversationEntity;
  readonly at: string;
}

/**
 * Keyset pages of the chat's growing lists (docs/pagination.md): an owner's conversations by
 * last activity (`conversation_owner_active_idx`) and a conversation's messages by id (the
 * `conversation_message_conversation_idx`), in either direction.
 */
@Injectable()
export class ConversationPagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The owner's conversations that are not archived, most recently active first. */
  async conversations(ownerId: number, limit: number, after: { at: string; id: string } | null) {
    const qb = managerOf(this.dataSource)
      .createQueryBuilder(ConversationEntity, 'c')
      .addSelect(`to_char(c.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'page_at')
      .where('c.owner_id = :ownerId AND c.archived_at IS NULL', { ownerId });
    if (after) qb.andWhere('(c.updated_at, c.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', after);
    const { entities, raw } = await qb
      .orderBy('c.updated_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .limit(limit)
      .getRawAndEntities<{ c_id: string; page_at: string }>();
    const at = new Map(raw.map((row) => [row.c_id, row.page_at]));
    return entities.map((conversation): KeyedConversation => ({
      conversation,
      at: at.get(conversation.id) ?? '',
    }));
  }

  /**
   * Messages of one conversation: `forward` the oldest first after the id `from` (exclusive),
   * else the newest first before it; `limit` rows.
   */
  async messages(conversationId: string, limit: number, from: number | null, forward: boolean) {
    const qb = managerOf(this.dataSource)
      .createQueryBuilder(MessageEntity, 'm')
      .where('m.conversation_id = :conversationId', { conversationId });
    if (from !== null) qb.andWhere(forward ? 'm.id > :from' : 'm.id < :from', { from });
    return qb
      .orderBy('m.id', forward ? 'ASC' : 'DESC')
      .limit(limit)
      .getMany();
  }
}
