import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { SERIAL_ID_PATTERN } from '../../../common/ids';
import { ErrorCodeEnum } from '../../../platform/graphql/error-code.enum';
import { GraphQLJSON } from '../../../platform/graphql/scalars';
import { EdgeType, PageInfoModel } from '../../../platform/graphql/connection.model';
import type { RunPage } from '../application/run-lists';

export enum RunStatusEnum {
  QUEUED = 'QUEUED',
  RUNNING = 'RUNNING',
  WAITING_FOR_APPROVAL = 'WAITING_FOR_APPROVAL',
  WAITING_FOR_INPUT = 'WAITING_FOR_INPUT',
  DECISION_RECORDED = 'DECISION_RECORDED',
  COMPLETED = 'COMPLETED',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
}
registerEnumType(RunStatusEnum, { name: 'RunStatus' });

export enum TerminationReasonEnum {
  COMPLETED = 'COMPLETED',
  MAX_ITERATIONS = 'MAX_ITERATIONS',
  BUDGET_EXHAUSTED = 'BUDGET_EXHAUSTED',
  POLICY_DENIED = 'POLICY_DENIED',
  APPROVAL_DENIED = 'APPROVAL_DENIED',
  PROVIDER_FAILED = 'PROVIDER_FAILED',
  CANCELLED = 'CANCELLED',
  RETRIES_EXHAUSTED = 'RETRIES_EXHAUSTED',
  NOT_RETRYABLE = 'NOT_RETRYABLE',
}
registerEnumType(TerminationReasonEnum, { name: 'TerminationReason' });

export enum PauseKindEnum {
  APPROVAL = 'APPROVAL',
  INPUT = 'INPUT',
}
registerEnumType(PauseKindEnum, { name: 'PauseKind' });

export enum StepKindEnum {
  REQUEST = 'REQUEST',
  LLM = 'LLM',
  TOOL = 'TOOL',
  TOOL_WRITE = 'TOOL_WRITE',
  APPROVAL = 'APPROVAL',
  INPUT = 'INPUT',
  DROPPED = 'DROPPED',
  CONTEXT = 'CONTEXT',
}
registerEnumType(StepKindEnum, { name: 'StepKind' });

@ObjectType('PendingToolCall')
export class PendingToolCallModel {
  @Field() callId: string;
  @Field() toolName: string;
  @Field() writes: boolean;
  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Null without detail access, and for a call on a page the viewer may not show.',
  })
  arguments: unknown;
  @Field(() => [String], {
    description:
      'Human-readable lines of what approving would change; one neutral line (naming no content) for a call on a page the viewer may not show.',
  })
  preview: string[];
}

@ObjectType('InputRequest')
export class InputRequestModel {
  @Field() toolName: string;
  @Field(() => String, { nullable: true }) question: string | null;
  @Field(() => GraphQLJSON, { description: 'JSON Schema of the values submitRunInput takes.' })
  schema: unknown;
}

@ObjectType('PendingTurn')
export class PendingTurnModel {
  @Field(() => PauseKindEnum) kind: PauseKindEnum;
  @Field(() => Int, { description: '1 for the first pause of the run, +1 for each later pause.' })
  turn: number;
  @Field({ description: 'Pass back unchanged with the decision.' }) turnDigest: string;
  @Field(() => [PendingToolCallModel]) calls: PendingToolCallModel[];
  @Field(() => InputRequestModel, { nullable: true }) inputRequest: InputRequestModel | null;
  @Field(() => Date) waitingSince: Date;
  @Field(() => Date, {
    nullable: true,
    description: "The decision deadline, where the run's configuration sets one (approval turns).",
  })
  expiresAt: Date | null;
  @Field(() => Int, {
    description: 'Distinct approvals this turn needs (1 unless the configuration asks for a quorum).',
  })
  approvalsRequired: number;
  /** The run it belongs to, for the approvals module's `approvals` field (not exposed). */
  runId: string;
}

@ObjectType('RunStep')
export class RunStepModel {
  @Field(() => Int) sequence: number;
  @Field(() => StepKindEnum) kind: StepKindEnum;
  @Field(() => Int) round: number;
  @Field(() => Int) durationMs: number;
  @Field(() => Date) at: Date;
  @Field(() => GraphQLJSON, { description: "Filtered by the run's privacy level when read from storage." })
  payload: unknown;
}

@ObjectType('RunStepEdge')
export class RunStepEdgeModel extends EdgeType(RunStepModel) {}

@ObjectType('RunStepConnection')
export class RunStepConnectionModel {
  @Field(() => [RunStepModel]) nodes: RunStepModel[];
  @Field(() => [RunStepEdgeModel]) edges: RunStepEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
  @Field({ description: 'Same as pageInfo.hasNextPage.' }) hasMore: boolean;
}

@ObjectType('Usage')
export class UsageModel {
  @Field(() => Int) promptTokens: number;
  @Field(() => Int) completionTokens: number;
  @Field(() => Int) totalTokens: number;
  @Field(() => Int, { description: 'Model calls that answered (the rounds).' }) modelCalls: number;
}

@ObjectType('HandBack', {
  description: 'A decision a worker could not carry out: the run waits again; the code says why.',
})
export class HandBackModel {
  @Field(() => ErrorCodeEnum) code: string;
  @Field(() => Date) at: Date;
}

@ObjectType('DroppedProcess')
export class DroppedProcessModel {
  @Field() reason: string;
}

/** The run as the API shows it; content fields resolve with a detail-access check. */
@ObjectType('Run')
export class RunModel {
  @Field(() => ID, { description: 'A UUID.' }) id: string;
  @Field(() => RunStatusEnum) status: RunStatusEnum;
  @Field(() => Int) workspaceId: number;
  @Field(() => Int) stepCount: number;
  @Field(() => Int) iterations: number;
  @Field() truncated: boolean;
  @Field(() => TerminationReasonEnum, { nullable: true }) terminationReason: TerminationReasonEnum | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date, { nullable: true }) startedAt: Date | null;
  @Field(() => Date, { nullable: true }) finishedAt: Date | null;
  @Field(() => Date, {
    nullable: true,
    description:
      "When the retention sweep removed this finished run's steps (docs/operations.md); null while kept.",
  })
  stepsRemovedAt: Date | null;
  @Field() isProcessRun: boolean;
  @Field(() => Int, {
    nullable: true,
    description: 'The skill version a process run is pinned to (docs/chat-and-skills.md "Skill versions").',
  })
  skillVersion: number | null;
  @Field(() => ID, { nullable: true }) predecessorRunId: string | null;
  @Field(() => DroppedProcessModel, { nullable: true }) droppedProcess: DroppedProcessModel | null;
  @Field(() => Int, { nullable: true, description: 'The subject page the tools default to.' })
  subjectPageId: number | null;
  @Field(() => Int, { nullable: true }) subjectLanguageId: number | null;
}

@ObjectType('RunEdge')
export class RunEdgeModel extends EdgeType(RunModel) {}

@ObjectType('RunConnection')
export class RunConnectionModel {
  @Field(() => [RunModel]) nodes: RunModel[];
  @Field(() => [RunEdgeModel]) edges: RunEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
  @Field({ description: 'Same as pageInfo.hasNextPage.' }) hasMore: boolean;
  /** The page behind `totalCount`, which is counted only when asked for. */
  page: RunPage;
}

@InputType('RunFilter')
export class RunFilterInput {
  @Field(() => [RunStatusEnum], { nullable: true }) status?: RunStatusEnum[] | null;
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @Matches(SERIAL_ID_PATTERN, { message: 'ownerId is not a valid id' })
  ownerId?: string | null;
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @Matches(SERIAL_ID_PATTERN, { message: 'configurationId is not a valid id' })
  configurationId?: string | null;
}

@InputType('StartRunInput')
export class StartRunInput {
  @Field(() => ID)
  @Matches(SERIAL_ID_PATTERN, { message: 'configurationId is not a valid id' })
  configurationId: string;
  @Field() @IsString() @MinLength(1) @MaxLength(20_000) prompt: string;
  @Field(() => ID, {
    nullable: true,
    description: 'The record the run is about, e.g. a page; tools default to it.',
  })
  @IsOptional()
  @Matches(SERIAL_ID_PATTERN, { message: 'subjectPageId is not a valid id' })
  subjectPageId?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1_000_000) subjectLanguageId?:
    number | null;
  @Field(() => Int, { nullable: true, description: 'Clamped to the ceiling (20).' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxIterations?: number | null;
  @Field(() => Int, { nullable: true, defaultValue: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  @Type(() => Number)
  workspaceId?: number | null;
}

export const RUN_OUTCOMES = [
  'DONE',
  'AWAITING_APPROVAL',
  'AWAITING_INPUT',
  'ERROR',
  'GUARDRAIL_BLOCKED',
  'CANCELLED',
] as const;
export const isRunOutcome = (v: string): boolean => (RUN_OUTCOMES as readonly string[]).includes(v);
