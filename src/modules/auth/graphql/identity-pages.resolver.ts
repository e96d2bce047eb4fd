import { Args, Field, ID, Int, ObjectType, Query, Resolver } from '@nestjs/graphql';
import { parseSerialId } from '../../../common/ids';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { connectionOf, EdgeType, PageInfoModel } from '../../../platform/graphql/connection.model';
import { IdentityPages } from '../application/identity-pages';
import { ApiTokenModel } from './api-token.model';
import { toApiTokenModel } from './api-tokens.resolver';
import { toUserModel } from './user.mapper';
import { UserModel } from './user.model';

@ObjectType('UserEdge')
export class UserEdgeModel extends EdgeType(UserModel) {}

@ObjectType('UserConnection', { description: 'A page of users (docs/pagination.md).' })
export class UserConnectionModel {
  @Field(() => [UserModel]) nodes: UserModel[];
  @Field(() => [UserEdgeModel]) edges: UserEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

@ObjectType('ApiTokenEdge')
export class ApiTokenEdgeModel extends EdgeType(ApiTokenModel) {}

@ObjectType('ApiTokenConnection', { description: "A page of a user's tokens (docs/pagination.md)." })
export class ApiTokenConnectionModel {
  @Field(() => [ApiTokenModel]) nodes: ApiTokenModel[];
  @Field(() => [ApiTokenEdgeModel]) edges: ApiTokenEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

@Resolver()
export class IdentityPagesResolver {
  constructor(private readonly pages: IdentityPages) {}

  @Query(() => UserConnectionModel, {
    description: 'Admins: every user by id, paged by cursor (first, after).',
  })
  @Allow(Access.Admin)
  async usersConnection(
    @Ctx() ctx: RequestContext,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
  ): Promise<UserConnectionModel> {
    return connectionOf(await this.pages.users(ctx, first ?? 50, after), after, toUserModel);
  }

  @Query(() => ApiTokenConnectionModel, {
    description: "A user's tokens, newest first, paged by cursor: one's own; admins: anyone's.",
  })
  @Allow(Access.Authenticated)
  async apiTokensConnection(
    @Ctx() ctx: RequestContext,
    @Args('userId', { type: () => ID, nullable: true, description: 'Default: the viewer.' })
    userId: string | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
  ): Promise<ApiTokenConnectionModel> {
    const id = userId === null || userId === undefined ? null : parseSerialId(userId, 'userId');
    return connectionOf(await this.pages.tokens(ctx, id, first ?? 50, after), after, toApiTokenModel);
  }
}
