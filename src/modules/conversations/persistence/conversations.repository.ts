import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { directQuery } from '../../../platform/database/direct-query';
import { EntityColumns } from '../../../platform/database/entity-columns';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { ConversationStatus, MessageRole } from '../core/conversation-status';
import { ConversationEntity } from './conversation.entity';
import { MessageEntity } from './message.entity';

export interface NewMessage {
  readonly conversationId: string;
  readonly role: MessageRole;
  readonly text: string;
  readonly notice?: string | null;
  readonly noticeArgs?: Record<string, unknown> | null;
  readonly runId?: string | null;
}

/** Columns a status transition may set with it. */
export type ConversationPatch = Partial<
  Pick<
    ConversationEntity,
    | 'status'
    | 'lastRunId'
    | 'activeRunId'
    | 'deciding'
    | 'skillStartPending'
    | 'viewPageId'
    | 'viewLanguageId'
    | 'viewModule'
  >
>;

/** The skill state a transition expects (as the caller read it). */
export interface SkillGuard {
  readonly identifier: string | null;
  readonly startPending: boolean;
}

/**
 * Conversations and their messages. Every status change is a conditional UPDATE on the
 * status it expects (and the run it expects, where one is named) that counts only when
 * exactly one row changed; the skill columns have their own UPDATE.
 */
@Injectable()
export class ConversationsRepository {
  private readonly columns: EntityColumns<ConversationEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.columns = new EntityColumns<ConversationEntity>(dataSource, ConversationEntity, 'c');
  }

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  async insert(row: Omit<ConversationEntity, 'createdAt' | 'updatedAt' | 'owner'>) {
    await this.m().insert(ConversationEntity, row);
  }

  async findById(id: string): Promise<ConversationEntity | null> {
    return this.m().findOne(ConversationEntity, { where: { id } });
  }

  /** The owner's conversations that are not archived, most recently active first. */
  async listForOwner(ownerId: number, limit: number): Promise<ConversationEntity[]> {
    return managerOf(this.dataSource).find(ConversationEntity, {
      where: { ownerId, archivedAt: IsNull() },
      order: { updatedAt: 'DESC', id: 'ASC' },
      take: limit,
    });
  }

  async countActive(ownerId: number): Promise<number> {
    return this.m().count(ConversationEntity, { where: { ownerId, archivedAt: IsNull() } });
  }

  /** The conversation processing or waiting on this run, if any. */
  /** why a plain statement (EntityColumns): every run's settle asks, in its transaction. */
  async findByActiveRun(runId: string): Promise<ConversationEntity | null> {
    const rows = await directQuery(
      this.m(),
      `SELECT ${this.columns.sql()} FROM conversation c WHERE c.active_run_id = $1 LIMIT 1`,
      [runId],
    );
    return this.columns.rows(rows)[0] ?? null;
  }

  /**
   * Moves the conversation from one of `from` (and, where given, while it is on `runId`) and
   * applies `patch`; the row after the change, or null when it was not in that state.
   */
  async transition(
    id: string,
    from: readonly ConversationStatus[],
    patch: ConversationPatch,
    runId?: string | null,
    skill?: SkillGuard,
  ): Promise<ConversationEntity | null> {
    const qb = this.m()
      .createQueryBuilder()
      .update(ConversationEntity)
      .set({ ...patch, updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .andWhere('status IN (:...from)', { from });
    if (runId !== undefined) {
      if (runId === null) qb.andWhere('active_run_id IS NULL');
      else qb.andWhere('active_run_id = :runId', { runId });
    }
    if (skill) {
      // why: a pick landing after the caller read the skill must not be overwritten or lost.
      qb.andWhere('skill_identifier IS NOT DISTINCT FROM :skillIdentifier', {
        skillIdentifier: skill.identifier,
      });
      qb.andWhere('skill_start_pending = :skillStartPending', { skillStartPending: skill.startPending });
    }
    const result = await qb.execute();
    return result.affected === 1 ? this.findById(id) : null;
  }

  /**
   * Writes the skill columns alone, unless a turn runs (PROCESSING): a turn settling later
   * never writes them, so it cannot put an old skill back. False when busy.
   */
  async setSkill(
    id: string,
    skill: { identifier: string | null; skillId: number | null; isProcess: boolean; startPending: boolean },
  ): Promise<boolean> {
    const result = await managerOf(this.dataSource)
      .createQueryBuilder()
      .update(ConversationEntity)
      .set({
        skillIdentifier: skill.identifier,
        skillId: skill.skillId,
        skillIsProcess: skill.isProcess,
        skillStartPending: skill.startPending,
        updatedAt: () => 'now()',
      })
      .where('id = :id', { id })
      .andWhere("status <> 'PROCESSING'")
      .execute();
    return result.affected === 1;
  }

  async insertMessages(messages: readonly NewMessage[]): Promise<MessageEntity[]> {
    if (messages.length === 0) return [];
    const rows = messages.map((m) => ({
      conversationId: m.conversationId,
      role: m.role,
      text: m.text,
      notice: m.notice ?? null,
      noticeArgs: m.noticeArgs ?? null,
      runId: m.runId ?? null,
    }));
    const result = await this.m().insert(MessageEntity, rows as Array<Partial<MessageEntity>> as never);
    const ids = result.identifiers.map((i) => String(i.id));
    const stored = await this.m().find(MessageEntity, { where: { id: In(ids) } });
    return stored.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /**
   * Locks the owner's user row until the transaction ends: concurrent starts of one owner
   * queue here, so the conversation limit is counted by one of them at a time.
   */
  async lockOwner(userId: number): Promise<void> {
    await this.m().query('SELECT id FROM app_user WHERE id = $1 FOR UPDATE', [userId]);
  }

  /** Messages of conversations, oldest first per conversation. */
  async messagesOf(conversationIds: readonly string[]): Promise<Map<string, MessageEntity[]>> {
    const byConversation = new Map<string, MessageEntity[]>(conversationIds.map((id) => [id, []]));
    if (conversationIds.length === 0) return byConversation;
    const rows = await managerOf(this.dataSource)
      .createQueryBuilder(MessageEntity, 'm')
      .where('m.conversation_id IN (:...ids)', { ids: conversationIds })
      .orderBy('m.id', 'ASC')
      .getMany();
    for (const row of rows) byConversation.get(row.conversationId)?.push(row);
    return byConversation;
  }

  /** The last `limit` user and assistant messages (what the model is sent; never notices). */
  async historyOf(conversationId: string, limit: number): Promise<MessageEntity[]> {
    const rows = await this.m()
      .createQueryBuilder(MessageEntity, 'm')
      .where('m.conversation_id = :id', { id: conversationId })
      .andWhere("m.role IN ('USER', 'ASSISTANT')")
      .orderBy('m.id', 'DESC')
      .limit(limit)
      .getMany();
    return rows.reverse();
  }
}
