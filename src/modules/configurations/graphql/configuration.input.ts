import { Field, ID, InputType, Int } from '@nestjs/graphql';
import {
  ArrayMaxSize,
  IsBoolean,
  IsEnum,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IDENTIFIER_PATTERN } from '../../skills';
import { GraphQLJSON } from '../../../platform/graphql/scalars';
import { ApprovalTimeoutActionEnum, PrivacyLevelEnum } from './configuration.model';

/** The longest decision deadline a configuration may set: 30 days. */
const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 3600;
/** The largest quorum a configuration may ask for. */
const MAX_REQUIRED_APPROVALS = 10;
const IDENTIFIER_MESSAGE = '$property must match /^[a-z0-9][a-z0-9._-]{0,99}$/';
/** At most this many ids or identifiers in one list. */
const MAX_LIST = 100;

@InputType('ConfigurationInput')
export class ConfigurationInput {
  @Field({ description: 'upsert key' })
  @Matches(IDENTIFIER_PATTERN, { message: IDENTIFIER_MESSAGE })
  identifier: string;

  @Field()
  @IsString()
  @Length(1, 200)
  name: string;

  @Field()
  @IsString()
  @Length(1, 32)
  provider: string;

  @Field()
  @IsString()
  @Length(1, 200)
  model: string;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'Provider options. For scripted: { rounds: [...] } (docs/run-lifecycle.md). For openai: { baseUrl, apiKeyEnv, temperature }.',
  })
  @IsOptional()
  providerOptions?: unknown;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50_000)
  systemPrompt?: string | null;

  @Field(() => Boolean, { nullable: true, defaultValue: true })
  @IsOptional()
  @IsBoolean()
  isActive?: boolean | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false })
  @IsOptional()
  @IsBoolean()
  requireSecondApprover?: boolean | null;

  @Field(() => Int, {
    nullable: true,
    description: 'How long a run may wait for an approval, in seconds (1 to 30 days); null: no deadline.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_APPROVAL_TIMEOUT_SECONDS)
  approvalTimeoutSeconds?: number | null;

  @Field(() => ApprovalTimeoutActionEnum, { nullable: true, defaultValue: ApprovalTimeoutActionEnum.DENY })
  @IsOptional()
  @IsEnum(ApprovalTimeoutActionEnum)
  onApprovalTimeout?: ApprovalTimeoutActionEnum | null;

  @Field(() => Int, {
    nullable: true,
    defaultValue: 1,
    description: 'Distinct approvers each approval turn needs (1 to 10).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_REQUIRED_APPROVALS)
  requiredApprovals?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 5 })
  @IsOptional()
  @IsInt()
  maxIterations?: number | null;

  @Field(() => PrivacyLevelEnum, { nullable: true, defaultValue: PrivacyLevelEnum.METADATA })
  @IsOptional()
  @IsEnum(PrivacyLevelEnum)
  privacyLevel?: PrivacyLevelEnum | null;

  @Field(() => [ID], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(MAX_LIST)
  @IsString({ each: true })
  allowedGroupIds?: string[] | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(MAX_LIST)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  skillIdentifiers?: string[] | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'Most tokens one run may use (checked before each model call); null: no cap (docs/budgets.md).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  maxTokensPerRun?: number | null;

  @Field(() => Int, {
    nullable: true,
    description:
      "Most tokens one user's runs of this configuration may use per UTC day; null: no cap (docs/budgets.md).",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  maxTokensPerUserPerDay?: number | null;
}

@InputType('TaskInput')
export class TaskInput {
  @Field({ description: 'upsert key' })
  @Matches(IDENTIFIER_PATTERN, { message: IDENTIFIER_MESSAGE })
  identifier: string;

  @Field()
  @IsString()
  @Length(1, 200)
  name: string;

  @Field()
  @IsString()
  @Length(1, 100)
  configurationIdentifier: string;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(MAX_LIST)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  skillIdentifiers?: string[] | null;

  @Field(() => [ID], {
    nullable: true,
    description: 'Groups mapped to this Task, for the chat. The first mapping in priority order wins.',
  })
  @IsOptional()
  @ArrayMaxSize(MAX_LIST)
  @IsString({ each: true })
  groupIds?: string[] | null;

  @Field(() => Int, { nullable: true, defaultValue: 0 })
  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number | null;
}
