import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { forbidden, notFound } from '../../../common/refusal';
import { parseSerialId } from '../../../common/ids';
import { SkillView } from '../core/skill';
import {
  approvalRefusal,
  sameContent,
  withdrawalRefusal,
  type SkillVersionView,
} from '../core/skill-version';
import { SkillsRepository, SkillWrite } from '../persistence/skills.repository';
import { SkillVersionsRepository } from '../persistence/skill-versions.repository';

/**
 * Administration of skills and their versions (docs/chat-and-skills.md "Skill versions"):
 * an edit writes a new DRAFT version, which runs use only once another admin approved it.
 */
@Injectable()
export class SkillsService {
  constructor(
    private readonly repository: SkillsRepository,
    private readonly versions: SkillVersionsRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * Creates the skill with this identifier, or updates it (same id): the input is the complete
   * description. Changed guidance (name, description, body, process flag) is written as a new
   * DRAFT version authored by the caller; the approved version in use stays as it is until
   * another admin approves the draft. `enabled` is not guidance and applies at once. Admins only
   * (FORBIDDEN otherwise; the resolver's guard says so first).
   */
  async upsertSkill(ctx: RequestContext, input: SkillWrite): Promise<SkillView> {
    if (!ctx.isAdmin) throw forbidden('Only admins may change skills');
    return this.transactions.run(async () => {
      // why: the upsert's UPDATE locks the skill row, so concurrent edits number versions in turn.
      const id = await this.repository.upsert(input);
      const latest = await this.versions.latest(id);
      if (!latest || !sameContent(latest, input)) await this.versions.appendDraft(id, input, ctx.viewer.id);
      const skill = await this.repository.findById(id);
      if (!skill) throw new Error(`skill ${id} vanished inside its own transaction`);
      return skill;
    });
  }

  /** A skill's versions, newest first (admins only); NOT_FOUND for an unknown skill. */
  async skillVersions(ctx: RequestContext, skillId: string): Promise<SkillVersionView[]> {
    if (!ctx.isAdmin) throw forbidden('Only admins may read skill versions');
    const id = parseSerialId(skillId, 'skillId');
    if (!(await this.repository.findById(id))) throw notFound('Skill not found');
    return this.versions.listForSkill(id);
  }

  /**
   * Approves a DRAFT version: from then on it is the version the catalogue shows and new
   * processes pin, when it is the newest approved one. Refusals: FORBIDDEN, NOT_FOUND,
   * SKILL_VERSION_NOT_DRAFT, SELF_APPROVAL_DENIED (its author); nothing is written on a refusal.
   */
  async approveVersion(ctx: RequestContext, versionId: string): Promise<SkillVersionView> {
    if (!ctx.isAdmin) throw forbidden('Only admins may approve skill versions');
    const version = await this.requireVersion(versionId);
    const refusal = approvalRefusal(version, ctx.viewer.id);
    if (refusal) throw refusal;
    if (!(await this.versions.approve(version.id, ctx.viewer.id))) {
      throw approvalRefusal((await this.versions.findById(version.id))!, ctx.viewer.id)!;
    }
    return (await this.versions.findById(version.id))!;
  }

  /**
   * Withdraws a version: never used again. A process pinned to it is dropped at its next turn
   * (VERSION_WITHDRAWN); the catalogue falls back to the newest approved version left.
   * Refusals: FORBIDDEN, NOT_FOUND, SKILL_VERSION_WITHDRAWN.
   */
  async withdrawVersion(ctx: RequestContext, versionId: string): Promise<SkillVersionView> {
    if (!ctx.isAdmin) throw forbidden('Only admins may withdraw skill versions');
    const version = await this.requireVersion(versionId);
    const refusal = withdrawalRefusal(version);
    if (refusal) throw refusal;
    if (!(await this.versions.withdraw(version.id, ctx.viewer.id))) {
      throw withdrawalRefusal({ ...version, state: 'WITHDRAWN' })!;
    }
    return (await this.versions.findById(version.id))!;
  }

  /** Versions by id, no access check (a turn reading the version its process pinned). */
  findVersions(ids: readonly number[]): Promise<SkillVersionView[]> {
    return this.versions.findByIds(ids);
  }

  /** The skills with these identifiers that exist, enabled or not (admin input resolution). */
  findByIdentifiers(identifiers: readonly string[]): Promise<SkillView[]> {
    return this.repository.findByIdentifiers(identifiers);
  }

  /** The skills attached to each configuration (enabled or not), ordered by identifier. */
  attachedToConfigurations(configurationIds: readonly number[]): Promise<Map<number, SkillView[]>> {
    return this.repository.attachedToConfigurations(configurationIds);
  }

  /** The skills attached to each Task (enabled or not), ordered by identifier. */
  attachedToTasks(taskIds: readonly number[]): Promise<Map<number, SkillView[]>> {
    return this.repository.attachedToTasks(taskIds);
  }

  private async requireVersion(versionId: string): Promise<SkillVersionView> {
    const version = await this.versions.findById(parseSerialId(versionId, 'id'));
    if (!version) throw notFound('Skill version not found');
    return version;
  }
}
