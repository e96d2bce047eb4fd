import { Args, ID, Mutation, Parent, Query, ResolveField, Resolver, Subscription } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { mapStream } from '../../../platform/pubsub/subscription-stream';
import { toUserModel, UserModel, UsersService } from '../../auth';
import { PendingTurnModel, RunsService, toPendingModel } from '../../runs';
import { ConversationReads } from '../application/conversation-reads';
import { PickSkill } from '../application/pick-skill';
import { SendMessage } from '../application/send-message';
import { StartConversation } from '../application/start-conversation';
import { ConversationDecisions } from '../application/conversation-decisions';
import { conversationRowOf, toConversationModel, toMessageModel } from './conversation.mapper';
import {
  ConversationEventModel,
  ConversationModel,
  CreateConversationInput,
  DecideConversationInput,
  MessageModel,
  SendMessageInput,
  SetConversationSkillInput,
  SkillCatalogueEntryModel,
  SubmitConversationInputInput,
} from './conversation.model';

/** The chat: conversations, their messages and decisions, the skill catalogue. CHAT grant only. */
@Resolver(() => ConversationModel)
export class ConversationsResolver {
  constructor(
    private readonly reads: ConversationReads,
    private readonly starts: StartConversation,
    private readonly skills: PickSkill,
    private readonly sends: SendMessage,
    private readonly chatDecisions: ConversationDecisions,
    private readonly runs: RunsService,
    private readonly users: UsersService,
  ) {}

  @Query(() => [SkillCatalogueEntryModel], {
    description:
      "The skills the viewer may pick in the chat: enabled skills of the chat's configuration and Task.",
  })
  @Allow(Access.Chat)
  async skillCatalogue(@Ctx() ctx: RequestContext): Promise<SkillCatalogueEntryModel[]> {
    return (await this.skills.catalogue(ctx)).map((e) => ({ ...e, skillId: String(e.skillId) }));
  }

  @Query(() => [ConversationModel], {
    description: "The viewer's conversations, most recently active first.",
  })
  @Allow(Access.Chat)
  async conversations(@Ctx() ctx: RequestContext): Promise<ConversationModel[]> {
    return (await this.reads.list(ctx)).map(toConversationModel);
  }

  @Query(() => ConversationModel, { nullable: true })
  @Allow(Access.Chat)
  async conversation(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<ConversationModel | null> {
    const row = await this.reads.find(ctx, id);
    return row ? toConversationModel(row) : null;
  }

  @Mutation(() => ConversationModel, {
    description:
      'Start a conversation, optionally about a page in a language, with a skill. A refused start creates nothing.',
  })
  @Allow(Access.Chat)
  async createConversation(
    @Ctx() ctx: RequestContext,
    @Args('input') input: CreateConversationInput,
  ): Promise<ConversationModel> {
    return toConversationModel(await this.starts.start(ctx, input));
  }

  @Mutation(() => ConversationModel, {
    description: 'Pick (or with null / "" remove) the skill. Sends no message.',
  })
  @Allow(Access.Chat)
  async setConversationSkill(
    @Ctx() ctx: RequestContext,
    @Args('input') input: SetConversationSkillInput,
  ): Promise<ConversationModel> {
    return toConversationModel(await this.skills.pick(ctx, input.conversationId, input.skill));
  }

  @Mutation(() => ConversationModel, {
    description: 'Send a message: a new turn, queued for a worker; the conversation is PROCESSING.',
  })
  @Allow(Access.Chat)
  async sendMessage(
    @Ctx() ctx: RequestContext,
    @Args('input') input: SendMessageInput,
  ): Promise<ConversationModel> {
    return toConversationModel(await this.sends.send(ctx, input));
  }

  @Mutation(() => ConversationModel, {
    description:
      'Approve or deny the proposal the conversation waits on (recorded, carried out by a worker).',
  })
  @Allow(Access.Chat)
  async decideConversationApproval(
    @Ctx() ctx: RequestContext,
    @Args('input') input: DecideConversationInput,
  ): Promise<ConversationModel> {
    return toConversationModel(await this.chatDecisions.decideApproval(ctx, input));
  }

  @Mutation(() => ConversationModel, { description: 'Answer the question the conversation waits on.' })
  @Allow(Access.Chat)
  async submitConversationInput(
    @Ctx() ctx: RequestContext,
    @Args('input') input: SubmitConversationInputInput,
  ): Promise<ConversationModel> {
    return toConversationModel(await this.chatDecisions.submitInput(ctx, input));
  }

  @ResolveField(() => UserModel)
  async owner(@Ctx() ctx: RequestContext, @Parent() conversation: ConversationModel): Promise<UserModel> {
    const owner = await this.users.findById(ctx, conversationRowOf(conversation).ownerId);
    if (!owner) throw new Error('conversation owner vanished');
    return toUserModel(owner);
  }

  @ResolveField(() => [MessageModel])
  async messages(
    @Ctx() ctx: RequestContext,
    @Parent() conversation: ConversationModel,
  ): Promise<MessageModel[]> {
    const rows = (await this.reads.messagesOf([conversation.id])).get(conversation.id) ?? [];
    return rows.map((m) => toMessageModel(m, ctx.viewer.locale));
  }

  @ResolveField(() => PendingTurnModel, { nullable: true, description: 'The decision card, while it waits.' })
  async pending(
    @Ctx() ctx: RequestContext,
    @Parent() conversation: ConversationModel,
  ): Promise<PendingTurnModel | null> {
    if (!conversation.approvalRunId) return null;
    const run = await this.runs.findRunById(conversation.approvalRunId);
    if (!run) return null;
    const pending = await this.runs.pending(ctx, run);
    return pending ? toPendingModel(pending) : null;
  }

  @Subscription(() => ConversationEventModel, {
    description: 'MESSAGE, STATUS and PROGRESS of one of the viewer’s conversations.',
    resolve: (e: ConversationEventModel): ConversationEventModel => e,
  })
  @Allow(Access.Chat)
  async conversationEvents(
    @Ctx() ctx: RequestContext,
    @Args('conversationId', { type: () => ID }) conversationId: string,
  ): Promise<AsyncIterableIterator<ConversationEventModel>> {
    const stream = await this.reads.openEvents(ctx, conversationId);
    const locale = ctx.viewer.locale;
    return mapStream(stream, (e) => ({
      kind: e.kind as ConversationEventModel['kind'],
      conversationId: e.conversationId,
      status: e.status as ConversationEventModel['status'],
      message: e.message ? toMessageModel(e.message, locale) : null,
      stepCount: e.stepCount ?? null,
      delta: e.delta ?? null,
    }));
  }
}
