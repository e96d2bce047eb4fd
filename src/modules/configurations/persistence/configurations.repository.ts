import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import type { JoinedRead } from '../../../platform/database/joined-read';
import { EntityColumns } from '../../../platform/database/entity-columns';
import { managerOf } from '../../../platform/database/transaction-runner';
import { ConfigurationSettings, ConfigurationView, isPrivacyLevel, TokenCaps } from '../core/configuration';
import { ConfigurationEntity } from './configuration.entity';
import { TaskEntity } from './task.entity';

/**
 * The columns an upsert writes; the identifier is the key. The token caps are written apart
 * (`setTokenCaps`), the skills too (`setConfigurationSkills`).
 */
export type ConfigurationWrite = Omit<ConfigurationSettings, 'id' | 'deletedAt' | keyof TokenCaps>;

/** A Task row with its group mappings (skills and configuration are read separately). */
export interface TaskRow {
  readonly id: number;
  readonly identifier: string;
  readonly name: string;
  readonly priority: number;
  readonly configurationId: number;
  readonly groupIds: number[];
}

export interface TaskWrite {
  readonly identifier: string;
  readonly name: string;
  readonly configurationId: number;
  readonly priority: number;
}

/** A configuration row without its skills (the service joins those in). */
export type ConfigurationRow = Omit<ConfigurationView, 'skills'>;

export function toConfigurationRow(e: ConfigurationEntity): ConfigurationRow {
  return {
    id: e.id,
    identifier: e.identifier,
    name: e.name,
    provider: e.provider,
    model: e.model,
    providerOptions: e.providerOptions,
    systemPrompt: e.systemPrompt,
    isActive: e.isActive,
    requireSecondApprover: e.requireSecondApprover,
    approvalTimeoutSeconds: e.approvalTimeoutSeconds,
    onApprovalTimeout: e.onApprovalTimeout === 'FAIL' ? 'FAIL' : 'DENY',
    requiredApprovals: e.requiredApprovals,
    maxIterations: e.maxIterations,
    // why: the column is free text; anything unexpected is treated as the default level.
    privacyLevel: isPrivacyLevel(e.privacyLevel) ? e.privacyLevel : 'METADATA',
    allowedGroupIds: e.allowedGroupIds,
    deletedAt: e.deletedAt,
    maxTokensPerRun: e.maxTokensPerRun,
    maxTokensPerUserPerDay: e.maxTokensPerUserPerDay,
  };
}

@Injectable()
export class ConfigurationsRepository {
  private readonly columns: EntityColumns<ConfigurationEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.columns = new EntityColumns<ConfigurationEntity>(dataSource, ConfigurationEntity, 'c');
  }

  /**
   * A configuration by id read in another row's statement (a decision reads it with its run):
   * the same row `findById` answers, without a round trip of its own.
   */
  readonly joinedById: JoinedRead<ConfigurationRow> = {
    sql: (alias, on) => ({
      join: `LEFT JOIN configuration ${alias} ON ${alias}.id = ${on}`,
      columns: this.columns.joinedSql(alias),
    }),
    read: (raw, alias) => {
      const e = this.columns.joinedRow(raw, alias);
      return e ? toConfigurationRow(e) : null;
    },
  };

  /** why one plain statement: it is read on every run start (bench P1). */
  async findById(id: number): Promise<ConfigurationRow | null> {
    const manager = managerOf(this.dataSource);
    const rows: unknown = await manager.query(
      `SELECT ${this.columns.sql()} FROM configuration c WHERE c.id = $1`,
      [id],
    );
    const e = this.columns.rows(rows)[0];
    return e ? toConfigurationRow(e) : null;
  }

  async findByIds(ids: readonly number[]): Promise<ConfigurationRow[]> {
    const manager = managerOf(this.dataSource);
    if (ids.length === 0) return [];
    // why one plain statement, as findById: a worker's pickup reads its runs' configurations
    // with it, and TypeORM's find builds its query and maps its rows on every call (bench P4).
    const rows: unknown = await manager.query(
      `SELECT ${this.columns.sql()} FROM configuration c WHERE c.id = ANY($1::int[])`,
      [[...ids]],
    );
    return this.columns.rows(rows).map(toConfigurationRow);
  }

  /** Every configuration not deleted, by id. */
  async listActive(): Promise<ConfigurationRow[]> {
    const manager = managerOf(this.dataSource);
    const rows = await manager.find(ConfigurationEntity, {
      where: { deletedAt: IsNull() },
      order: { id: 'ASC' },
    });
    return rows.map(toConfigurationRow);
  }

  async findByIdentifier(identifier: string): Promise<ConfigurationRow | null> {
    const manager = managerOf(this.dataSource);
    const e = await manager.findOne(ConfigurationEntity, { where: { identifier } });
    return e ? toConfigurationRow(e) : null;
  }

  /** Sets a configuration's token caps (null: no cap), in the upsert's transaction. */
  async setTokenCaps(id: number, caps: TokenCaps): Promise<void> {
    const manager = managerOf(this.dataSource);
    await manager.query(
      `UPDATE configuration SET max_tokens_per_run = $2, max_tokens_per_user_per_day = $3 WHERE id = $1`,
      [id, caps.maxTokensPerRun, caps.maxTokensPerUserPerDay],
    );
  }

  /**
   * Inserts or updates by identifier in one statement, so two concurrent upserts of the same
   * identifier cannot both insert. An upsert of a deleted configuration brings it back.
   */
  async upsert(c: ConfigurationWrite): Promise<number> {
    const manager = managerOf(this.dataSource);
    const rows: Array<{ id: number }> = await manager.query(
      `INSERT INTO configuration (identifier, name, provider, model, provider_options, system_prompt, is_active,
         require_second_approver, max_iterations, privacy_level, allowed_group_ids,
         approval_timeout_seconds, on_approval_timeout, required_approvals)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11::int[], $12, $13, $14)
       ON CONFLICT (identifier) DO UPDATE SET name = EXCLUDED.name, provider = EXCLUDED.provider,
         model = EXCLUDED.model, provider_options = EXCLUDED.provider_options,
         system_prompt = EXCLUDED.system_prompt, is_active = EXCLUDED.is_active,
         require_second_approver = EXCLUDED.require_second_approver,
         max_iterations = EXCLUDED.max_iterations, privacy_level = EXCLUDED.privacy_level,
         allowed_group_ids = EXCLUDED.allowed_group_ids,
         approval_timeout_seconds = EXCLUDED.approval_timeout_seconds,
         on_approval_timeout = EXCLUDED.on_approval_timeout, required_approvals = EXCLUDED.required_approvals,
         deleted_at = NULL, updated_at = now()
       RETURNING id`,
      [
        c.identifier,
        c.name,
        c.provider,
        c.model,
        JSON.stringify(c.providerOptions),
        c.systemPrompt,
        c.isActive,
        c.requireSecondApprover,
        c.maxIterations,
        c.privacyLevel,
        [...c.allowedGroupIds],
        c.approvalTimeoutSeconds,
        c.onApprovalTimeout,
        c.requiredApprovals,
      ],
    );
    return idOf(rows, 'configuration');
  }

  /** Replaces the skills attached to a configuration. */
  async setConfigurationSkills(configurationId: number, skillIds: readonly number[]) {
    const manager = managerOf(this.dataSource);
    await manager.query('DELETE FROM configuration_skill WHERE configuration_id = $1', [configurationId]);
    if (skillIds.length === 0) return;
    await manager.query(
      'INSERT INTO configuration_skill (configuration_id, skill_id) SELECT $1, unnest($2::int[])',
      [configurationId, [...skillIds]],
    );
  }

  /** Every Task with its mapped groups, by id. */
  async listTasks(): Promise<TaskRow[]> {
    const manager = managerOf(this.dataSource);
    const rows = await manager.find(TaskEntity, { relations: { groups: true }, order: { id: 'ASC' } });
    return rows.map(toTaskRow);
  }

  async findTaskById(id: number): Promise<TaskRow | null> {
    const manager = managerOf(this.dataSource);
    const e = await manager.findOne(TaskEntity, { where: { id }, relations: { groups: true } });
    return e ? toTaskRow(e) : null;
  }

  async findTaskByIdentifier(identifier: string): Promise<TaskRow | null> {
    const manager = managerOf(this.dataSource);
    const e = await manager.findOne(TaskEntity, { where: { identifier }, relations: { groups: true } });
    return e ? toTaskRow(e) : null;
  }

  async upsertTask(t: TaskWrite): Promise<number> {
    const manager = managerOf(this.dataSource);
    const rows: Array<{ id: number }> = await manager.query(
      `INSERT INTO task (identifier, name, configuration_id, priority) VALUES ($1, $2, $3, $4)
       ON CONFLICT (identifier) DO UPDATE SET name = EXCLUDED.name,
         configuration_id = EXCLUDED.configuration_id, priority = EXCLUDED.priority
       RETURNING id`,
      [t.identifier, t.name, t.configurationId, t.priority],
    );
    return idOf(rows, 'task');
  }

  /** Replaces a Task's skills and group mappings. */
  async setTaskLinks(taskId: number, skillIds: readonly number[], groupIds: readonly number[]) {
    const manager = managerOf(this.dataSource);
    await manager.query('DELETE FROM task_skill WHERE task_id = $1', [taskId]);
    await manager.query('DELETE FROM task_group WHERE task_id = $1', [taskId]);
    if (skillIds.length > 0) {
      await manager.query('INSERT INTO task_skill (task_id, skill_id) SELECT $1, unnest($2::int[])', [
        taskId,
        [...skillIds],
      ]);
    }
    if (groupIds.length > 0) {
      await manager.query('INSERT INTO task_group (task_id, group_id) SELECT $1, unnest($2::int[])', [
        taskId,
        [...groupIds],
      ]);
    }
  }
}

function toTaskRow(e: TaskEntity): TaskRow {
  return {
    id: e.id,
    identifier: e.identifier,
    name: e.name,
    priority: e.priority,
    configurationId: e.configurationId,
    groupIds: (e.groups ?? []).map((g) => g.id).sort((a, b) => a - b),
  };
}

function idOf(rows: Array<{ id: number }>, what: string): number {
  const id = rows[0]?.id;
  if (id === undefined) throw new Error(`${what} upsert returned no id`);
  return Number(id);
}
