import { Field, InputType } from '@nestjs/graphql';
import { IsBoolean, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IDENTIFIER_PATTERN } from '../core/skill';

/** Limits of a skill's texts (characters). */
export const SKILL_LIMITS = { name: 200, description: 2_000, body: 60_000 } as const;

@InputType('SkillInput')
export class SkillInput {
  @Field({ description: 'upsert key' })
  @Matches(IDENTIFIER_PATTERN, { message: 'identifier must match /^[a-z0-9][a-z0-9._-]{0,99}$/' })
  identifier: string;

  @Field()
  @IsString()
  @Length(1, SKILL_LIMITS.name)
  name: string;

  @Field(() => String, { nullable: true, defaultValue: '' })
  @IsOptional()
  @IsString()
  @MaxLength(SKILL_LIMITS.description)
  description?: string | null;

  @Field()
  @IsString()
  @Length(1, SKILL_LIMITS.body)
  body: string;

  @Field(() => Boolean, { nullable: true, defaultValue: false })
  @IsOptional()
  @IsBoolean()
  isProcess?: boolean | null;

  @Field(() => Boolean, { nullable: true, defaultValue: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean | null;
}
