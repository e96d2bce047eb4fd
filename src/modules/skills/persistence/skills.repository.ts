import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { SkillView } from '../core/skill';
import { SkillEntity } from './skill.entity';

/** The fields an upsert writes; the identifier is the key. */
export interface SkillWrite {
  readonly identifier: string;
  readonly name: string;
  readonly description: string;
  readonly body: string;
  readonly isProcess: boolean;
  readonly enabled: boolean;
}

export function toSkillView(e: SkillEntity): SkillView {
  return {
    id: e.id,
    identifier: e.identifier,
    name: e.name,
    description: e.description,
    body: e.body,
    isProcess: e.isProcess,
    enabled: e.enabled,
  };
}

interface RawSkillRow {
  id: number;
  identifier: string;
  name: string;
  description: string;
  body: string;
  is_process: boolean;
  enabled: boolean;
}

const fromRaw = (r: RawSkillRow): SkillView => ({
  id: Number(r.id),
  identifier: r.identifier,
  name: r.name,
  description: r.description,
  body: r.body,
  isProcess: r.is_process,
  enabled: r.enabled,
});

@Injectable()
export class SkillsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts or updates by identifier in one statement (safe against a concurrent upsert). */
  async upsert(skill: SkillWrite, manager: EntityManager): Promise<number> {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(SkillEntity)
      .values({ ...skill })
      .orUpdate(['name', 'description', 'body', 'is_process', 'enabled', 'updated_at'], ['identifier'])
      .returning(['id'])
      .execute();
    const row = result.raw as Array<{ id: number }>;
    const id = row[0]?.id;
    if (id === undefined) throw new Error('skill upsert returned no id');
    return id;
  }

  async findById(id: number, manager: EntityManager = managerOf(this.dataSource)): Promise<SkillView | null> {
    const e = await manager.findOne(SkillEntity, { where: { id } });
    return e ? toSkillView(e) : null;
  }

  /** The skills with these identifiers (those that exist), enabled or not. */
  async findByIdentifiers(
    identifiers: readonly string[],
    manager: EntityManager = managerOf(this.dataSource),
  ): Promise<SkillView[]> {
    if (identifiers.length === 0) return [];
    const rows = await manager.find(SkillEntity, { where: { identifier: In([...identifiers]) } });
    return rows.map(toSkillView);
  }

  /** The skills attached to each of these configurations, by identifier. */
  async attachedToConfigurations(
    configurationIds: readonly number[],
    manager: EntityManager = managerOf(this.dataSource),
  ): Promise<Map<number, SkillView[]>> {
    return this.attached('configuration_skill', 'configuration_id', configurationIds, manager);
  }

  /** The skills attached to each of these Tasks, by identifier. */
  async attachedToTasks(
    taskIds: readonly number[],
    manager: EntityManager = managerOf(this.dataSource),
  ): Promise<Map<number, SkillView[]>> {
    return this.attached('task_skill', 'task_id', taskIds, manager);
  }

  private async attached(
    joinTable: 'configuration_skill' | 'task_skill',
    ownerColumn: 'configuration_id' | 'task_id',
    ownerIds: readonly number[],
    manager: EntityManager,
  ): Promise<Map<number, SkillView[]>> {
    const result = new Map<number, SkillView[]>(ownerIds.map((id) => [id, []]));
    if (ownerIds.length === 0) return result;
    // why: raw rows, not entities: TypeORM merges entity rows by primary key, and one skill
    // may be attached to several owners.
    const rows: Array<RawSkillRow & { owner_id: number }> = await manager.query(
      `SELECT s.id, s.identifier, s.name, s.description, s.body, s.is_process, s.enabled, j.${ownerColumn} AS owner_id
         FROM skill s JOIN ${joinTable} j ON j.skill_id = s.id
        WHERE j.${ownerColumn} = ANY($1::int[])
        ORDER BY s.identifier`,
      [[...ownerIds]],
    );
    for (const row of rows) result.get(Number(row.owner_id))?.push(fromRaw(row));
    return result;
  }
}
