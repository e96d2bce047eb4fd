import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
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

interface RawSkillRow {
  id: number;
  identifier: string;
  name: string;
  description: string;
  body: string;
  is_process: boolean;
  enabled: boolean;
  /** The latest APPROVED version's columns (null where none is approved). */
  a_id: number | null;
  a_version: number | null;
  a_name: string | null;
  a_description: string | null;
  a_body: string | null;
  a_is_process: boolean | null;
}

const fromRaw = (r: RawSkillRow): SkillView => ({
  id: Number(r.id),
  identifier: r.identifier,
  name: r.name,
  description: r.description,
  body: r.body,
  isProcess: r.is_process,
  enabled: r.enabled,
  approved:
    r.a_id === null
      ? null
      : {
          versionId: Number(r.a_id),
          version: Number(r.a_version),
          name: r.a_name ?? '',
          description: r.a_description ?? '',
          body: r.a_body ?? '',
          isProcess: r.a_is_process === true,
        },
});

/** Every skill column plus its latest APPROVED version's (the `a_` columns). */
const SKILL_COLUMNS = `s.id, s.identifier, s.name, s.description, s.body, s.is_process, s.enabled,
  a.id AS a_id, a.version AS a_version, a.name AS a_name, a.description AS a_description,
  a.body AS a_body, a.is_process AS a_is_process`;
const APPROVED_JOIN = `LEFT JOIN LATERAL (
    SELECT v.id, v.version, v.name, v.description, v.body, v.is_process FROM skill_version v
     WHERE v.skill_id = s.id AND v.state = 'APPROVED' ORDER BY v.version DESC LIMIT 1) a ON true`;

@Injectable()
export class SkillsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts or updates by identifier in one statement (safe against a concurrent upsert). */
  async upsert(skill: SkillWrite): Promise<number> {
    const manager = managerOf(this.dataSource);
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

  async findById(id: number): Promise<SkillView | null> {
    const manager = managerOf(this.dataSource);
    const rows: RawSkillRow[] = await manager.query(
      `SELECT ${SKILL_COLUMNS} FROM skill s ${APPROVED_JOIN} WHERE s.id = $1`,
      [id],
    );
    return rows[0] ? fromRaw(rows[0]) : null;
  }

  /** The skills with these identifiers (those that exist), enabled or not. */
  async findByIdentifiers(identifiers: readonly string[]): Promise<SkillView[]> {
    const manager = managerOf(this.dataSource);
    if (identifiers.length === 0) return [];
    const rows: RawSkillRow[] = await manager.query(
      `SELECT ${SKILL_COLUMNS} FROM skill s ${APPROVED_JOIN} WHERE s.identifier = ANY($1::text[]) ORDER BY s.identifier`,
      [[...identifiers]],
    );
    return rows.map(fromRaw);
  }

  /** The skills attached to each of these configurations, by identifier. */
  async attachedToConfigurations(configurationIds: readonly number[]): Promise<Map<number, SkillView[]>> {
    return this.attached('configuration_skill', 'configuration_id', configurationIds);
  }

  /** The skills attached to each of these Tasks, by identifier. */
  async attachedToTasks(taskIds: readonly number[]): Promise<Map<number, SkillView[]>> {
    return this.attached('task_skill', 'task_id', taskIds);
  }

  private async attached(
    joinTable: 'configuration_skill' | 'task_skill',
    ownerColumn: 'configuration_id' | 'task_id',
    ownerIds: readonly number[],
  ): Promise<Map<number, SkillView[]>> {
    const manager = managerOf(this.dataSource);
    const result = new Map<number, SkillView[]>(ownerIds.map((id) => [id, []]));
    if (ownerIds.length === 0) return result;
    // why: raw rows, not entities: TypeORM merges entity rows by primary key, and one skill
    // may be attached to several owners.
    const rows: Array<RawSkillRow & { owner_id: number }> = await manager.query(
      `SELECT ${SKILL_COLUMNS}, j.${ownerColumn} AS owner_id
         FROM skill s JOIN ${joinTable} j ON j.skill_id = s.id ${APPROVED_JOIN}
        WHERE j.${ownerColumn} = ANY($1::int[])
        ORDER BY s.identifier`,
      [[...ownerIds]],
    );
    for (const row of rows) result.get(Number(row.owner_id))?.push(fromRaw(row));
    return result;
  }
}
