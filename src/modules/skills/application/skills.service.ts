import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { forbidden } from '../../../common/refusal';
import { SkillView } from '../core/skill';
import { SkillsRepository, SkillWrite } from '../persistence/skills.repository';

/** Administration of skills. */
@Injectable()
export class SkillsService {
  constructor(
    private readonly repository: SkillsRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * Creates the skill with this identifier, or updates it in place (same id): the input is the
   * complete description. Admins only (FORBIDDEN otherwise; the resolver's guard says so
   * first). A process skill's flag may change; conversations pinned to it notice at their next
   * turn (the catalogue is read per turn).
   */
  async upsertSkill(ctx: RequestContext, input: SkillWrite): Promise<SkillView> {
    if (!ctx.isAdmin) throw forbidden('Only admins may change skills');
    return this.transactions.run(async ({ manager }) => {
      const id = await this.repository.upsert(input, manager);
      const skill = await this.repository.findById(id, manager);
      if (!skill) throw new Error(`skill ${id} vanished inside its own transaction`);
      return skill;
    });
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
}
