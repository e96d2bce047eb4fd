import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { SERIAL_ID_PATTERN, UUID_PATTERN } from '../../../common/ids';
import { GraphQLJSON } from '../../../platform/graphql/scalars';
import { DenialReasonEnum } from '../../approvals';
import { PendingTurnModel, TextDeltaModel } from '../../runs';
import { UserModel } from '../../auth';

export enum ConversationStatusEnum {
  IDLE = 'IDLE',
  PROCESSING = 'PROCESSING',
  AWAITING_APPROVAL = 'AWAITING_APPROVAL',
  AWAITING_INPUT = 'AWAITING_INPUT',
  FAILED = 'FAILED',
}
registerEnumType(ConversationStatusEnum, { name: 'ConversationStatus' });

export enum MessageRoleEnum {
  USER = 'USER',
  ASSISTANT = 'ASSISTANT',
  NOTICE = 'NOTICE',
}
registerEnumType(MessageRoleEnum, { name: 'MessageRole' });

export enum ConversationEventKindEnum {
  MESSAGE = 'MESSAGE',
  STATUS = 'STATUS',
  PROGRESS = 'PROGRESS',
  /** Part of the answer as the model writes it (the owner only; never stored). */
  TEXT_DELTA = 'TEXT_DELTA',
}
registerEnumType(ConversationEventKindEnum, { name: 'ConversationEventKind' });

@ObjectType('SkillCatalogueEntry')
export class SkillCatalogueEntryModel {
  @Field() identifier: string;
  @Field({ description: 'The identifier where the skill has no name.' }) name: string;
  @Field() description: string;
  @Field({ description: 'A guided process over several turns (started by invocation).' }) isProcess: boolean;
  @Field(() => ID, { nullable: true }) skillId: string | null;
  @Field(() => Int, { nullable: true, description: 'The approved version the catalogue offers.' })
  version: number | null;
}

@ObjectType('ViewContext')
export class ViewContextModel {
  @Field(() => ID, { nullable: true }) pageId: string | null;
  @Field(() => Int, { nullable: true, description: 'Kept only with a page.' }) languageId: number | null;
  @Field(() => String, { nullable: true }) module: string | null;
}

@ObjectType('ConversationSkill')
export class ConversationSkillModel {
  @Field() identifier: string;
  @Field(() => ID, { nullable: true, description: 'Null when the catalogue did not know it.' })
  skillId: string | null;
  @Field() isProcess: boolean;
  @Field({ description: 'The next turn carries the invocation.' }) startPending: boolean;
}

@ObjectType('Message')
export class MessageModel {
  @Field(() => ID) id: string;
  @Field(() => MessageRoleEnum) role: MessageRoleEnum;
  @Field({
    description:
      "The text for the reader: a NOTICE is rendered in the viewer's locale from notice + noticeArgs.",
  })
  text: string;
  @Field(() => String, { nullable: true, description: 'Language-neutral notice code, e.g. PROCESS_DROPPED.' })
  notice: string | null;
  @Field(() => GraphQLJSON, { nullable: true }) noticeArgs: Record<string, unknown> | null;
  @Field(() => ID, { nullable: true }) runId: string | null;
  @Field(() => Date) createdAt: Date;
}

@ObjectType('Conversation')
export class ConversationModel {
  @Field(() => ID) id: string;
  @Field(() => UserModel) owner?: UserModel;
  @Field() title: string;
  @Field(() => ConversationStatusEnum) status: ConversationStatusEnum;
  @Field(() => ViewContextModel) viewContext: ViewContextModel;
  @Field(() => ConversationSkillModel, { nullable: true }) skill: ConversationSkillModel | null;
  @Field(() => [MessageModel]) messages?: MessageModel[];
  @Field(() => ID, {
    nullable: true,
    description: 'The last run of a turn: the next turn continues from it.',
  })
  lastRunId: string | null;
  @Field(() => ID, { nullable: true, description: 'The run the conversation waits on.' })
  approvalRunId: string | null;
  @Field(() => PendingTurnModel, { nullable: true, description: 'The decision card, while it waits.' })
  pending?: PendingTurnModel | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date) updatedAt: Date;
}

@ObjectType('ConversationEvent')
export class ConversationEventModel {
  @Field(() => ConversationEventKindEnum) kind: ConversationEventKindEnum;
  @Field(() => ID) conversationId: string;
  @Field(() => ConversationStatusEnum) status: ConversationStatusEnum;
  @Field(() => MessageModel, { nullable: true, description: 'MESSAGE' }) message: MessageModel | null;
  @Field(() => Int, { nullable: true, description: "PROGRESS: the step count of the turn's run." })
  stepCount: number | null;
  @Field(() => TextDeltaModel, { nullable: true, description: 'TEXT_DELTA (the owner only)' })
  delta: TextDeltaModel | null;
}

/** A page and a language (kept only with the page), as a start and a turn name them. */
@InputType({ isAbstract: true })
abstract class PageLanguageInput {
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @Matches(SERIAL_ID_PATTERN, { message: 'pageId is not a valid id' })
  pageId?: string | null;
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  languageId?: number | null;
}

@InputType('CreateConversationInput')
export class CreateConversationInput extends PageLanguageInput {
  @Field(() => String, { nullable: true, description: 'A catalogue identifier.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  skill?: string | null;
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  title?: string | null;
}

@InputType('SetConversationSkillInput')
export class SetConversationSkillInput {
  @Field(() => ID)
  @Matches(UUID_PATTERN, { message: 'conversationId is not a valid UUID' })
  conversationId: string;
  @Field(() => String, { nullable: true, description: 'null or "" removes the skill.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  skill?: string | null;
}

@InputType('ViewContextInput')
export class ViewContextInput extends PageLanguageInput {
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @MaxLength(100) module?: string | null;
}

@InputType('SendMessageInput')
export class SendMessageInput {
  @Field(() => ID)
  @Matches(UUID_PATTERN, { message: 'conversationId is not a valid UUID' })
  conversationId: string;
  @Field() @IsString() @MinLength(1) @MaxLength(20_000) text: string;
  @Field(() => ViewContextInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => ViewContextInput)
  viewContext?: ViewContextInput | null;
}

@InputType('DecideConversationInput')
export class DecideConversationInput {
  @Field(() => ID)
  @Matches(UUID_PATTERN, { message: 'conversationId is not a valid UUID' })
  conversationId: string;
  @Field() @IsString() @MinLength(1) @MaxLength(128) turnDigest: string;
  @Field() approve: boolean;
  @Field(() => DenialReasonEnum, { nullable: true })
  @IsOptional()
  @IsIn(['VARIANT', 'SKIP'])
  denialReason?: DenialReasonEnum | null;
}

@InputType('SubmitConversationInputInput')
export class SubmitConversationInputInput {
  @Field(() => ID)
  @Matches(UUID_PATTERN, { message: 'conversationId is not a valid UUID' })
  conversationId: string;
  @Field() @IsString() @MinLength(1) @MaxLength(128) turnDigest: string;
  @Field(() => GraphQLJSON) values: unknown;
}
