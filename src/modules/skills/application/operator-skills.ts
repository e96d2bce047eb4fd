import type { DataSource } from 'typeorm';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { SkillsRepository } from '../persistence/skills.repository';
import { SkillVersionsRepository } from '../persistence/skill-versions.repository';
import { SkillCatalogue } from './skill-catalogue';
import { SkillsService } from './skills.service';

/**
 * The skills module's services over a data source of their own, outside the Nest container:
 * for work done outside the API (the demo seed's configurations and Tasks resolve their skills
 * through them), with the same reads the API's services make.
 */
export class OperatorSkills {
  private constructor(
    readonly skills: SkillsService,
    readonly catalogue: SkillCatalogue,
  ) {}

  static over(dataSource: DataSource): OperatorSkills {
    const repository = new SkillsRepository(dataSource);
    return new OperatorSkills(
      new SkillsService(
        repository,
        new SkillVersionsRepository(dataSource),
        new TransactionRunner(dataSource),
      ),
      new SkillCatalogue(repository),
    );
  }
}
