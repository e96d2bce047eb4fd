import { Args, Field, Int, ObjectType, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { EdgeType, PageInfoModel, pageInfoOf } from '../../../platform/graphql/connection.model';
import { InboxService } from '../application/inbox.service';
import { toInboxItemModel } from './decision.mapper';
import { InboxItemModel } from './decision.model';

@ObjectType('InboxItemEdge')
export class InboxItemEdgeModel extends EdgeType(InboxItemModel) {}

@ObjectType('InboxConnection', { description: 'A page of the inbox (docs/pagination.md).' })
export class InboxConnectionModel {
  @Field(() => [InboxItemModel]) nodes: InboxItemModel[];
  @Field(() => [InboxItemEdgeModel]) edges: InboxItemEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

@Resolver()
export class InboxConnectionResolver {
  constructor(private readonly inbox: InboxService) {}

  @Query(() => InboxConnectionModel, {
    description:
      'The inbox as a cursor-paged connection (Relay style): runs waiting for a decision the viewer may make, longest wait first.',
  })
  @Allow(Access.Authenticated)
  async inboxConnection(
    @Ctx() ctx: RequestContext,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('after', { type: () => String, nullable: true, description: 'Continue after this cursor.' })
    after: string | null,
  ): Promise<InboxConnectionModel> {
    const page = await this.inbox.page(ctx.viewer, { first: first ?? 50, after }, ctx);
    const edges = page.edges.map(({ entry, cursor }) => ({
      cursor,
      node: toInboxItemModel(entry, ctx.viewer.id),
    }));
    return {
      nodes: edges.map((edge) => edge.node),
      edges,
      pageInfo: pageInfoOf(
        edges.map((edge) => edge.cursor),
        page.hasNextPage,
        after,
      ),
    };
  }
}
