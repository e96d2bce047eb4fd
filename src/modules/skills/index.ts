export { SkillEntity } from './persistence/skill.entity';
export { SkillsModule } from './skills.module';
