import { Module } from '@nestjs/common';
import { SkillCatalogue } from './application/skill-catalogue';
import { SkillsService } from './application/skills.service';
import { SkillsResolver } from './graphql/skills.resolver';
import { SkillsRepository } from './persistence/skills.repository';
import { SkillVersionsRepository } from './persistence/skill-versions.repository';

@Module({
  providers: [SkillsRepository, SkillVersionsRepository, SkillsService, SkillCatalogue, SkillsResolver],
  exports: [SkillsService, SkillCatalogue],
})
export class SkillsModule {}
