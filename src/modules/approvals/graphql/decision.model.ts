import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { UUID_PATTERN } from '../../../common/ids';
import { UserModel } from '../../auth';
import { ErrorCodeEnum } from '../../../platform/graphql/error-code.enum';
import { GraphQLJSON } from '../../../platform/graphql/scalars';
import { RunModel, RunStatusEnum } from '../../runs';

export enum DecisionKindEnum {
  APPROVE = 'APPROVE',
  DENY = 'DENY',
  INPUT = 'INPUT',
  EXPIRE = 'EXPIRE',
}
registerEnumType(DecisionKindEnum, {
  name: 'DecisionKind',
  valuesMap: { EXPIRE: { description: 'The deadline passed and nobody decided (decidedBy is null).' } },
});

export enum DenialReasonEnum {
  VARIANT = 'VARIANT',
  SKIP = 'SKIP',
}
registerEnumType(DenialReasonEnum, { name: 'DenialReason' });

export enum DecisionPathEnum {
  INLINE = 'INLINE',
  DURABLE = 'DURABLE',
}
registerEnumType(DecisionPathEnum, { name: 'DecisionPath' });

@ObjectType('Decision')
export class DecisionModel {
  @Field(() => ID) id: string;
  @Field(() => Int) turn: number;
  @Field(() => DecisionKindEnum) kind: DecisionKindEnum;
  @Field(() => UserModel, { nullable: true, description: 'Null for EXPIRE.' }) decidedBy: UserModel | null;
  @Field(() => DenialReasonEnum, { nullable: true }) denialReason: DenialReasonEnum | null;
  @Field() turnDigest: string;
  @Field(() => DecisionPathEnum) path: DecisionPathEnum;
  @Field(() => Date) decidedAt: Date;
  @Field(() => RunStatusEnum, {
    nullable: true,
    description: 'The status the continuation settled in, once it has.',
  })
  outcome: RunStatusEnum | null;
}

@ObjectType('DecisionReceipt')
export class DecisionReceiptModel {
  @Field(() => DecisionModel) decision: DecisionModel;
  @Field(() => RunModel, { description: 'The run right after the claim (RUNNING or DECISION_RECORDED).' })
  run: RunModel;
  @Field(() => DecisionPathEnum) path: DecisionPathEnum;
}

export enum InboxChangeEnum {
  ADDED = 'ADDED',
  UPDATED = 'UPDATED',
  REMOVED = 'REMOVED',
}
registerEnumType(InboxChangeEnum, {
  name: 'InboxChange',
  description:
    'What an inboxChanged event says happened: ADDED (the run started waiting), UPDATED (the same turn announced again), REMOVED (it no longer waits).',
});

@ObjectType('InboxItem', { description: 'The inbox: runs waiting for a decision that the viewer may make.' })
export class InboxItemModel {
  @Field(() => ID, { description: 'Stable per run and viewer.' }) id: string;
  @Field(() => InboxChangeEnum, {
    nullable: true,
    description: 'Set on inboxChanged events; null in the inbox query.',
  })
  change: InboxChangeEnum | null;
  @Field(() => RunModel) run: RunModel;
  @Field({
    description: "False where the viewer may decide but not read the run's detail (approval grant only).",
  })
  detailVisible: boolean;
  @Field({
    description:
      'False where approving would be refused: four-eyes (the initiator), or the decider gate (a write the viewer may not perform as themselves, e.g. a page they may not show or edit in that language). The viewer may still deny.',
  })
  mayApprove: boolean;
  @Field(() => ErrorCodeEnum, {
    nullable: true,
    description:
      'Why mayApprove is false: SELF_APPROVAL_DENIED or APPROVER_NOT_PERMITTED; null where it is true.',
  })
  approveRefusal: string | null;
  @Field({ description: 'False for process runs, which only their initiator decides, in the chat.' })
  decidableHere: boolean;
}

@InputType('ApproveRunInput')
export class ApproveRunInput {
  @Field(() => ID) @Matches(UUID_PATTERN, { message: 'runId is not a valid UUID' }) runId: string;
  @Field() @IsString() @MinLength(1) @MaxLength(128) turnDigest: string;
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  idempotencyKey?: string | null;
  @Field(() => DecisionPathEnum, { nullable: true })
  @IsOptional()
  @IsIn(['INLINE', 'DURABLE'])
  path?: DecisionPathEnum | null;
}

@InputType('DenyRunInput')
export class DenyRunInput extends ApproveRunInput {
  @Field(() => DenialReasonEnum, { nullable: true })
  @IsOptional()
  @IsIn(['VARIANT', 'SKIP'])
  reason?: DenialReasonEnum | null;
}

@InputType('SubmitRunInputInput')
export class SubmitRunInputInput extends ApproveRunInput {
  @Field(() => GraphQLJSON) values: unknown;
}
