import { Field, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import type { SkillVersionView } from '../core/skill-version';

export enum SkillVersionStateEnum {
  DRAFT = 'DRAFT',
  APPROVED = 'APPROVED',
  WITHDRAWN = 'WITHDRAWN',
}
registerEnumType(SkillVersionStateEnum, {
  name: 'SkillVersionState',
  description: 'DRAFT: written by an edit; APPROVED: used by runs; WITHDRAWN: never used again.',
});

@ObjectType('SkillVersion', {
  description: 'One version of a skill’s guidance (admins only). Runs use the newest APPROVED one.',
})
export class SkillVersionModel {
  @Field(() => ID) id: string;
  @Field(() => ID) skillId: string;
  @Field(() => Int, { description: '1, 2, ... per skill' }) version: number;
  @Field() name: string;
  @Field() description: string;
  @Field({ description: 'The guidance the model is given.' }) body: string;
  @Field() isProcess: boolean;
  @Field(() => SkillVersionStateEnum) state: SkillVersionStateEnum;
  @Field(() => ID, { nullable: true, description: 'Null for a version no person wrote (migrated, seeded).' })
  authorId: string | null;
  @Field(() => ID, { nullable: true }) approvedBy: string | null;
  @Field(() => Date, { nullable: true }) approvedAt: Date | null;
  @Field(() => ID, { nullable: true }) withdrawnBy: string | null;
  @Field(() => Date, { nullable: true }) withdrawnAt: Date | null;
  @Field() createdAt: Date;
}

const idOrNull = (id: number | null): string | null => (id === null ? null : String(id));

export function toSkillVersionModel(v: SkillVersionView): SkillVersionModel {
  return {
    id: String(v.id),
    skillId: String(v.skillId),
    version: v.version,
    name: v.name,
    description: v.description,
    body: v.body,
    isProcess: v.isProcess,
    state: v.state as SkillVersionStateEnum,
    authorId: idOrNull(v.authorId),
    approvedBy: idOrNull(v.approvedBy),
    approvedAt: v.approvedAt,
    withdrawnBy: idOrNull(v.withdrawnBy),
    withdrawnAt: v.withdrawnAt,
    createdAt: v.createdAt,
  };
}
