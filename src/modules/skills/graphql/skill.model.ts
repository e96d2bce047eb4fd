import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { SkillView } from '../core/skill';

@ObjectType('Skill')
export class SkillModel {
  @Field(() => ID) id: string;
  @Field() identifier: string;
  @Field({ description: 'As last edited; runs use the approved version.' }) name: string;
  @Field() description: string;
  @Field() isProcess: boolean;
  @Field() enabled: boolean;
  @Field(() => Int, {
    nullable: true,
    description: 'The version runs and the catalogue use: the newest approved one (null: none).',
  })
  approvedVersion: number | null;
}

/** Maps a skill to its GraphQL model (the body is not part of the API; versions carry it). */
export function toSkillModel(skill: SkillView): SkillModel {
  return {
    id: String(skill.id),
    identifier: skill.identifier,
    name: skill.name,
    description: skill.description,
    isProcess: skill.isProcess,
    enabled: skill.enabled,
    approvedVersion: skill.approved?.version ?? null,
  };
}
