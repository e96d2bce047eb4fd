import { Args, Field, Int, ObjectType, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { connectionOf, EdgeType, PageInfoModel } from '../../../platform/graphql/connection.model';
import { ConversationPages } from '../application/conversation-pages';
import { toConversationModel, toMessageModel } from './conversation.mapper';
import { ConversationModel, MessageModel } from './conversation.model';

@ObjectType('ConversationEdge')
export class ConversationEdgeModel extends EdgeType(ConversationModel) {}

@ObjectType('ConversationConnection', { description: 'A page of conversations (docs/pagination.md).' })
export class ConversationConnectionModel {
  @Field(() => [ConversationModel]) nodes: ConversationModel[];
  @Field(() => [ConversationEdgeModel]) edges: ConversationEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

@ObjectType('MessageEdge')
export class MessageEdgeModel extends EdgeType(MessageModel) {}

@ObjectType('MessageConnection', {
  description: 'A page of a conversation’s messages, oldest first within the page.',
})
export class MessageConnectionModel {
  @Field(() => [MessageModel]) nodes: MessageModel[];
  @Field(() => [MessageEdgeModel]) edges: MessageEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

/** The chat's cursor-paged lists: conversations and a conversation's messages. CHAT grant only. */
@Resolver(() => ConversationModel)
export class ConversationPagesResolver {
  constructor(private readonly pages: ConversationPages) {}

  @Query(() => ConversationConnectionModel, {
    description: "The viewer's conversations, most recently active first, paged by cursor (first, after).",
  })
  @Allow(Access.Chat)
  async conversationsConnection(
    @Ctx() ctx: RequestContext,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('after', { type: () => String, nullable: true, description: 'Continue after this cursor.' })
    after: string | null,
  ): Promise<ConversationConnectionModel> {
    return connectionOf(await this.pages.conversations(ctx, first ?? 50, after), after, toConversationModel);
  }

  @ResolveField(() => MessageConnectionModel, {
    description:
      'The messages by cursor: forward with first/after (oldest first), or backward with last/before (the latest `last` first, what a chat window shows; then `before: pageInfo.startCursor` to scroll up). Rows are oldest first within every page.',
  })
  async messagesConnection(
    @Ctx() ctx: RequestContext,
    @Parent() conversation: ConversationModel,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ): Promise<MessageConnectionModel> {
    const page = await this.pages.messages(conversation.id, { first, after, last, before });
    return connectionOf(page, after ?? before, (m) => toMessageModel(m, ctx.viewer.locale));
  }
}
