import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { ConversationEntity } from './conversation.entity';

/**
 * One message of a conversation. A NOTICE is stored language-neutral (`notice` + `noticeArgs`,
 * empty `text`) and rendered in the reader's locale; notices are never sent to the model.
 */
@Entity({ name: 'conversation_message' })
@Index('conversation_message_conversation_idx', ['conversationId', 'id'])
export class MessageEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column({ name: 'conversation_id', type: 'uuid' })
  conversationId: string;

  @ManyToOne(() => ConversationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'conversation_id' })
  conversation?: ConversationEntity;

  /** USER, ASSISTANT, NOTICE */
  @Column({ type: 'varchar', length: 10 })
  role: string;

  @Column({ type: 'text' })
  text: string;

  @Column({ type: 'varchar', length: 50, nullable: true })
  notice: string | null;

  @Column({ name: 'notice_args', type: 'jsonb', nullable: true })
  noticeArgs: Record<string, unknown> | null;

  @Column({ name: 'run_id', type: 'uuid', nullable: true })
  runId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
