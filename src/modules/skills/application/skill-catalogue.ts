import { Injectable } from '@nestjs/common';
import { buildCatalogue, CatalogueEntry } from '../core/skill';
import { SkillsRepository } from '../persistence/skills.repository';

/**
 * The skill catalogue of docs/chat-and-skills.md: the one place that decides which
 * skills a chat may offer and how they reach a run. It is read fresh for every use (no cache),
 * so a skill detached or disabled by an admin leaves the catalogue at the next turn.
 */
@Injectable()
export class SkillCatalogue {
  constructor(private readonly repository: SkillsRepository) {}

  /**
   * The enabled skills attached to a configuration plus those attached to a Task (where one is
   * given), deduplicated by identifier. Unknown ids give an empty contribution, not an error.
   */
  async forConfiguration(configurationId: number, taskId: number | null = null): Promise<CatalogueEntry[]> {
    const configurationSkills = await this.repository.attachedToConfigurations([configurationId]);
    const taskSkills =
      taskId === null ? [] : ((await this.repository.attachedToTasks([taskId])).get(taskId) ?? []);
    return buildCatalogue(configurationSkills.get(configurationId) ?? [], taskSkills);
  }
}
