export { SkillsModule } from './skills.module';
export { SkillsService } from './application/skills.service';
export { SkillCatalogue } from './application/skill-catalogue';
export { OperatorSkills } from './application/operator-skills';
export { buildCatalogue, findInCatalogue, IDENTIFIER_PATTERN } from './core/skill';
export type { ApprovedSkill, CatalogueEntry, SkillView } from './core/skill';
export type { SkillVersionState, SkillVersionView } from './core/skill-version';
export { SkillModel, toSkillModel } from './graphql/skill.model';
