import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';

/**
 * A chat between one user and the agent, usually about one page in one language. Every turn,
 * decision and repair moves `status` with a conditional UPDATE; the skill columns are written
 * on their own (setConversationSkill), never by a turn settling.
 */
@Entity({ name: 'conversation' })
// The owner's list, in its order (docs/pagination.md); archived conversations are never listed.
@Index('conversation_owner_active_idx', ['ownerId', 'updatedAt', 'id'], { where: '"archived_at" IS NULL' })
@Index('conversation_active_run_idx', ['activeRunId'], { where: '"active_run_id" IS NOT NULL' })
export class ConversationEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'owner_id', type: 'int' })
  ownerId: number;

  // The owner is the auth module's: named by its table, so no entity of another module is imported.
  @ManyToOne('app_user', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id' })
  owner?: { id: number };

  @Column({ type: 'varchar', length: 200 })
  title: string;

  /** IDLE, PROCESSING, AWAITING_APPROVAL, AWAITING_INPUT, FAILED */
  @Column({ type: 'varchar', length: 20, default: 'IDLE' })
  status: string;

  @Column({ name: 'view_page_id', type: 'int', nullable: true })
  viewPageId: number | null;

  /** Kept only with a page. */
  @Column({ name: 'view_language_id', type: 'int', nullable: true })
  viewLanguageId: number | null;

  @Column({ name: 'view_module', type: 'varchar', length: 100, nullable: true })
  viewModule: string | null;

  /** The catalogue identifier picked; kept even when the skill leaves the catalogue. */
  @Column({ name: 'skill_identifier', type: 'varchar', length: 100, nullable: true })
  skillIdentifier: string | null;

  /** The skill's id as the catalogue knew it when picked (null when it did not). */
  @Column({ name: 'skill_id', type: 'int', nullable: true })
  skillId: number | null;

  @Column({ name: 'skill_is_process', type: 'boolean', default: false })
  skillIsProcess: boolean;

  /** The next turn carries the process skill's invocation (set by a pick, cleared by a run). */
  @Column({ name: 'skill_start_pending', type: 'boolean', default: false })
  skillStartPending: boolean;

  /** The last run recorded for a turn, whatever it ended in; the next turn's predecessor. */
  @Column({ name: 'last_run_id', type: 'uuid', nullable: true })
  lastRunId: string | null;

  /** The run the conversation processes or waits on; null when IDLE or FAILED. */
  @Column({ name: 'active_run_id', type: 'uuid', nullable: true })
  activeRunId: string | null;

  /** True while a decision taken in the chat is being carried out (DECISION_IN_FLIGHT). */
  @Column({ type: 'boolean', default: false })
  deciding: boolean;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
