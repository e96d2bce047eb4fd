import { Field, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { SkillModel, toSkillModel } from '../../skills';
import { ConfigurationView, PrivacyLevel, TaskView } from '../core/configuration';

export enum PrivacyLevelEnum {
  NONE = 'NONE',
  METADATA = 'METADATA',
  REDACTED = 'REDACTED',
  FULL = 'FULL',
}
registerEnumType(PrivacyLevelEnum, { name: 'PrivacyLevel' });

export enum ApprovalTimeoutActionEnum {
  DENY = 'DENY',
  FAIL = 'FAIL',
}
registerEnumType(ApprovalTimeoutActionEnum, {
  name: 'ApprovalTimeoutAction',
  description:
    'What happens to a run whose decision deadline passed: continue as denied (reason EXPIRED), or fail.',
});

@ObjectType('Configuration')
export class ConfigurationModel {
  @Field(() => ID) id: string;
  @Field() identifier: string;
  @Field() name: string;
  @Field() isActive: boolean;
  @Field() requireSecondApprover: boolean;
  @Field(() => Int, { nullable: true, description: 'Null: no deadline.' })
  approvalTimeoutSeconds: number | null;
  @Field(() => ApprovalTimeoutActionEnum) onApprovalTimeout: ApprovalTimeoutActionEnum;
  @Field(() => Int) requiredApprovals: number;
  @Field(() => Int) maxIterations: number;
  @Field(() => PrivacyLevelEnum) privacyLevel: PrivacyLevelEnum;
  @Field() provider: string;
  @Field() model: string;
  @Field(() => [SkillModel]) skills: SkillModel[];
  @Field(() => Int, { nullable: true, description: 'Token cap of one run; null: none (docs/budgets.md).' })
  maxTokensPerRun: number | null;
  @Field(() => Int, {
    nullable: true,
    description: "Token cap of one user's runs of this configuration per UTC day; null: none.",
  })
  maxTokensPerUserPerDay: number | null;
}

@ObjectType('Task')
export class TaskModel {
  @Field(() => ID) id: string;
  @Field() identifier: string;
  @Field() name: string;
  @Field(() => ConfigurationModel) configuration: ConfigurationModel;
  @Field(() => [SkillModel]) skills: SkillModel[];
}

const PRIVACY: Record<PrivacyLevel, PrivacyLevelEnum> = {
  NONE: PrivacyLevelEnum.NONE,
  METADATA: PrivacyLevelEnum.METADATA,
  REDACTED: PrivacyLevelEnum.REDACTED,
  FULL: PrivacyLevelEnum.FULL,
};

/**
 * Maps a configuration to its GraphQL model (also for `Run.configuration`). Provider options,
 * the system prompt and the allowed groups are not part of the API.
 */
export function toConfigurationModel(c: ConfigurationView): ConfigurationModel {
  return {
    id: String(c.id),
    identifier: c.identifier,
    name: c.name,
    isActive: c.isActive,
    requireSecondApprover: c.requireSecondApprover,
    approvalTimeoutSeconds: c.approvalTimeoutSeconds,
    onApprovalTimeout: c.onApprovalTimeout as ApprovalTimeoutActionEnum,
    requiredApprovals: c.requiredApprovals,
    maxIterations: c.maxIterations,
    privacyLevel: PRIVACY[c.privacyLevel],
    provider: c.provider,
    model: c.model,
    skills: c.skills.map(toSkillModel),
    maxTokensPerRun: c.maxTokensPerRun,
    maxTokensPerUserPerDay: c.maxTokensPerUserPerDay,
  };
}

/** What a withheld configuration's names, provider and model read. */
export const WITHHELD_TEXT = '(withheld)';

/**
 * A configuration as a viewer sees it who may not use it but decides a run of it: kept are
 * the id and what the decision depends on (`isActive`, `requireSecondApprover`, and
 * `privacyLevel`, what is stored of the run); identifier, name, provider and model read
 * {@link WITHHELD_TEXT}, `maxIterations` 0, `skills` is empty, the token caps null. The fields stay non-null so a
 * client's query of a run keeps the rest of its answer.
 */
export function toWithheldConfigurationModel(c: ConfigurationView): ConfigurationModel {
  return {
    ...toConfigurationModel(c),
    identifier: WITHHELD_TEXT,
    name: WITHHELD_TEXT,
    maxIterations: 0,
    provider: WITHHELD_TEXT,
    model: WITHHELD_TEXT,
    skills: [],
    maxTokensPerRun: null,
    maxTokensPerUserPerDay: null,
  };
}

export function toTaskModel(t: TaskView): TaskModel {
  return {
    id: String(t.id),
    identifier: t.identifier,
    name: t.name,
    configuration: toConfigurationModel(t.configuration),
    skills: t.skills.map(toSkillModel),
  };
}
