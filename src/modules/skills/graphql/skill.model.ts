import { Field, ID, ObjectType } from '@nestjs/graphql';
import { SkillView } from '../core/skill';

@ObjectType('Skill')
export class SkillModel {
  @Field(() => ID) id: string;
  @Field() identifier: string;
  @Field() name: string;
  @Field() description: string;
  @Field() isProcess: boolean;
  @Field() enabled: boolean;
}

/** Maps a skill to its GraphQL model (the body is not part of the API). */
export function toSkillModel(skill: SkillView): SkillModel {
  return {
    id: String(skill.id),
    identifier: skill.identifier,
    name: skill.name,
    description: skill.description,
    isProcess: skill.isProcess,
    enabled: skill.enabled,
  };
}
