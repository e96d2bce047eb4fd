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

/** Partial-index predicates; queries repeat them literally so that the planner can use them. */
const WAITING_PREDICATE = "status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT')";
const FINISHED_PREDICATE = "status IN ('COMPLETED', 'FAILED', 'CANCELLED')";
const UNFINISHED_PREDICATE = "status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')";

/**
 * One agent run. Transitions are conditional UPDATEs in RunsRepository, never saves of this
 * entity. `checkpoint` is the encrypted state the run continues from (its start input while
 * queued, the suspended state while it waits, the state after the last completed write while
 * it runs); it is blanked on every terminal transition.
 */
@Entity({ name: 'run' })
// The runs by status, unfinished only: the reaper and the worker's gauges (finished runs are the
// history, nearly all of the table, and a settle then writes no entry here).
@Index('run_unfinished_idx', ['status'], { where: UNFINISHED_PREDICATE })
// The lists' indexes, each in its list's sort order (docs/pagination.md).
@Index('run_owner_created_idx', ['ownerId', 'createdAt', 'id'])
@Index('run_created_idx', ['createdAt', 'id'])
@Index('run_waiting_idx', ['waitingSince', 'id'], { where: WAITING_PREDICATE })
@Index('run_owner_waiting_idx', ['ownerId', 'waitingSince', 'id'], { where: WAITING_PREDICATE })
// The retention sweep's order: finished runs by when they finished.
@Index('run_finished_idx', ['finishedAt'], { where: FINISHED_PREDICATE })
@Index('run_steps_kept_idx', ['finishedAt'], { where: `${FINISHED_PREDICATE} AND steps_removed_at IS NULL` })
// The expiry sweep's order: approval waits with a deadline, soonest first.
@Index('run_expiry_idx', ['expiresAt'], {
  where: "status = 'WAITING_FOR_APPROVAL' AND expires_at IS NOT NULL",
})
// The pickups' orders: recorded decisions oldest first, queued runs oldest first. why: with
// only an index on the status a pickup read every run of the status and sorted them, per pass.
@Index('run_recorded_idx', ['recordedAt', 'id'], { where: "status = 'DECISION_RECORDED'" })
@Index('run_queued_idx', ['createdAt', 'id'], { where: "status = 'QUEUED'" })
@Index('run_owner_unfinished_idx', ['ownerId'], { where: UNFINISHED_PREDICATE })
export class RunEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'configuration_id', type: 'int' })
  configurationId: number;

  // Other modules' tables are named, not imported: their entities stay inside them.
  @ManyToOne('configuration', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'configuration_id' })
  configuration?: { id: number };

  @Column({ name: 'owner_id', type: 'int' })
  ownerId: number;

  @ManyToOne('app_user', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_id' })
  owner?: { id: number };

  @Column({ name: 'workspace_id', type: 'int', default: 0 })
  workspaceId: number;

  @Column({ name: 'subject_page_id', type: 'int', nullable: true })
  subjectPageId: number | null;

  @Column({ name: 'subject_language_id', type: 'int', nullable: true })
  subjectLanguageId: number | null;

  @Column({ name: 'max_iterations', type: 'int' })
  maxIterations: number;

  @Column({ type: 'varchar', length: 32 })
  status: string;

  @Column({ name: 'termination_reason', type: 'varchar', length: 32, nullable: true })
  terminationReason: string | null;

  @Column({ type: 'boolean', default: false })
  truncated: boolean;

  @Column({ type: 'int', default: 0 })
  iterations: number;

  @Column({ name: 'prompt_tokens', type: 'int', default: 0 })
  promptTokens: number;

  @Column({ name: 'completion_tokens', type: 'int', default: 0 })
  completionTokens: number;

  @Column({ name: 'step_count', type: 'int', default: 0 })
  stepCount: number;

  /** AES-256-GCM ciphertext (state-cipher); never returned by the API as such. */
  @Column({ type: 'text', nullable: true })
  checkpoint: string | null;

  @Column({ type: 'int', default: 0 })
  turn: number;

  @Column({ name: 'turn_digest', type: 'char', length: 64, nullable: true })
  turnDigest: string | null;

  @Column({ name: 'waiting_since', type: 'timestamptz', nullable: true })
  waitingSince: Date | null;

  /** The decision deadline of the approval the run waits for (its configuration's timeout). */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'claimed_by', type: 'varchar', length: 200, nullable: true })
  claimedBy: string | null;

  @Column({ name: 'lease_token', type: 'uuid', nullable: true })
  leaseToken: string | null;

  // why: not indexed, so the per-step UPDATE (step_count, lease renewal) touches no indexed
  // column and stays a HOT update: flat, small WAL per step. The reaper finds expired
  // leases through the status index (few runs are RUNNING at once).
  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt: Date | null;

  /** The non-idempotent tool call in flight: {callId, toolName}. */
  @Column({ name: 'pending_effect', type: 'jsonb', nullable: true })
  pendingEffect: Record<string, unknown> | null;

  @Column({ name: 'requeue_count', type: 'int', default: 0 })
  requeueCount: number;

  @Column({ name: 'predecessor_run_id', type: 'uuid', nullable: true })
  predecessorRunId: string | null;

  @Column({ name: 'skill_invocation', type: 'jsonb', nullable: true })
  skillInvocation: Record<string, unknown> | null;

  @Column({ name: 'process_pin', type: 'jsonb', nullable: true })
  processPin: Record<string, unknown> | null;

  @Column({ name: 'dropped_process', type: 'jsonb', nullable: true })
  droppedProcess: Record<string, unknown> | null;

  /** The last recorded decision a worker handed back ({code, at}), while the run waits again. */
  @Column({ name: 'hand_back', type: 'jsonb', nullable: true })
  handBack: Record<string, unknown> | null;

  /** When the current recorded decision (DECISION_RECORDED) was recorded; for the pickup. */
  @Column({ name: 'recorded_at', type: 'timestamptz', nullable: true })
  recordedAt: Date | null;

  @Column({ name: 'had_decision', type: 'boolean', default: false })
  hadDecision: boolean;

  /** Started as a chat turn: only such a run can be a conversation's active run. */
  @Column({ name: 'chat_turn', type: 'boolean', default: false })
  chatTurn: boolean;

  @Column({ type: 'text', nullable: true })
  answer: string | null;

  @Column({ name: 'error_message', type: 'varchar', length: 500, nullable: true })
  errorMessage: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  /** When the retention sweep deleted the steps of this finished run (the run row stays). */
  @Column({ name: 'steps_removed_at', type: 'timestamptz', nullable: true })
  stepsRemovedAt: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
