import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { SkillContent, SkillVersionState, SkillVersionView } from '../core/skill-version';
import { SkillVersionEntity } from './skill-version.entity';

const toView = (e: SkillVersionEntity): SkillVersionView => ({
  id: e.id,
  skillId: e.skillId,
  version: e.version,
  name: e.name,
  description: e.description,
  body: e.body,
  isProcess: e.isProcess,
  state: e.state as SkillVersionState,
  authorId: e.authorId,
  approvedBy: e.approvedBy,
  approvedAt: e.approvedAt,
  withdrawnBy: e.withdrawnBy,
  withdrawnAt: e.withdrawnAt,
  createdAt: e.createdAt,
});

/** The versions of skills. Each state change is one UPDATE guarded on the state it expects. */
@Injectable()
export class SkillVersionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** A skill's versions, newest first. */
  async listForSkill(skillId: number): Promise<SkillVersionView[]> {
    const rows = await this.m().find(SkillVersionEntity, { where: { skillId }, order: { version: 'DESC' } });
    return rows.map(toView);
  }

  async findById(id: number): Promise<SkillVersionView | null> {
    const e = await this.m().findOne(SkillVersionEntity, { where: { id } });
    return e ? toView(e) : null;
  }

  /** Versions by id (those that exist). */
  async findByIds(ids: readonly number[]): Promise<SkillVersionView[]> {
    if (ids.length === 0) return [];
    const rows: SkillVersionEntity[] = await this.m()
      .createQueryBuilder(SkillVersionEntity, 'v')
      .where('v.id IN (:...ids)', { ids: [...ids] })
      .getMany();
    return rows.map(toView);
  }

  /** The newest version of a skill (any state), or null. */
  async latest(skillId: number): Promise<SkillVersionView | null> {
    const e = await this.m().findOne(SkillVersionEntity, { where: { skillId }, order: { version: 'DESC' } });
    return e ? toView(e) : null;
  }

  /**
   * Appends the next version of a skill as a DRAFT. The caller holds the skill row's lock (the
   * upsert's own UPDATE), so concurrent edits number their versions one after the other.
   */
  async appendDraft(skillId: number, content: SkillContent, authorId: number): Promise<SkillVersionView> {
    const rows: Array<{ id: number }> = await this.m().query(
      `INSERT INTO skill_version (skill_id, version, name, description, body, is_process, state, author_id)
       SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4, $5, 'DRAFT', $6
         FROM skill_version WHERE skill_id = $1
       RETURNING id`,
      [skillId, content.name, content.description, content.body, content.isProcess, authorId],
    );
    const created = await this.findById(Number(rows[0]!.id));
    if (!created) throw new Error('skill version vanished inside its own transaction');
    return created;
  }

  /** DRAFT -> APPROVED by this admin; false when the version was no longer a draft. */
  async approve(id: number, approverId: number): Promise<boolean> {
    const result = await this.m()
      .createQueryBuilder()
      .update(SkillVersionEntity)
      .set({ state: 'APPROVED', approvedBy: approverId, approvedAt: () => 'now()' })
      .where("id = :id AND state = 'DRAFT'", { id })
      .execute();
    return result.affected === 1;
  }

  /** DRAFT or APPROVED -> WITHDRAWN; false when it was withdrawn already. */
  async withdraw(id: number, adminId: number): Promise<boolean> {
    const result = await this.m()
      .createQueryBuilder()
      .update(SkillVersionEntity)
      .set({ state: 'WITHDRAWN', withdrawnBy: adminId, withdrawnAt: () => 'now()' })
      .where("id = :id AND state <> 'WITHDRAWN'", { id })
      .execute();
    return result.affected === 1;
  }
}
