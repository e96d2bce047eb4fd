import {
  Column,
  CreateDateColumn,
  Entity,
  JoinTable,
  ManyToMany,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** An agent configuration: provider, model, prompt, limits, privacy, who may use it. */
@Entity({ name: 'configuration' })
export class ConfigurationEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100, unique: true })
  identifier: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 32 })
  provider: string;

  @Column({ type: 'varchar', length: 200 })
  model: string;

  @Column({ name: 'provider_options', type: 'jsonb', default: () => "'{}'" })
  providerOptions: Record<string, unknown>;

  @Column({ name: 'system_prompt', type: 'text', default: '' })
  systemPrompt: string;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @Column({ name: 'require_second_approver', type: 'boolean', default: false })
  requireSecondApprover: boolean;

  @Column({ name: 'approval_timeout_seconds', type: 'int', nullable: true })
  approvalTimeoutSeconds: number | null;

  /** DENY, FAIL */
  @Column({ name: 'on_approval_timeout', type: 'varchar', length: 8, default: 'DENY' })
  onApprovalTimeout: string;

  @Column({ name: 'required_approvals', type: 'int', default: 1 })
  requiredApprovals: number;

  @Column({ name: 'max_iterations', type: 'int', default: 5 })
  maxIterations: number;

  /** NONE, METADATA, REDACTED, FULL */
  @Column({ name: 'privacy_level', type: 'varchar', length: 16, default: 'METADATA' })
  privacyLevel: string;

  /** Groups allowed to use it; empty means every user. */
  @Column({ name: 'allowed_group_ids', type: 'int', array: true, default: () => "'{}'" })
  allowedGroupIds: number[];

  // The skills module's table, named rather than imported (its entities stay inside it).
  @ManyToMany('skill')
  @JoinTable({
    name: 'configuration_skill',
    joinColumn: { name: 'configuration_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'skill_id', referencedColumnName: 'id' },
  })
  skills?: Array<{ id: number }>;

  /** Token cap of one run; null: none. */
  @Column({ name: 'max_tokens_per_run', type: 'int', nullable: true })
  maxTokensPerRun: number | null;

  /** Token cap of one user's runs of this configuration per UTC day; null: none. */
  @Column({ name: 'max_tokens_per_user_per_day', type: 'int', nullable: true })
  maxTokensPerUserPerDay: number | null;

  /** Set when the configuration was deleted; runs keep pointing at it (CONFIGURATION_GONE). */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
