import { Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { toUserModel } from './user.mapper';
import { GrantEnum, ViewerModel } from './user.model';

@Resolver(() => ViewerModel)
export class ViewerResolver {
  @Query(() => ViewerModel)
  @Allow(Access.Authenticated)
  viewer(@Ctx() ctx: RequestContext): ViewerModel {
    const user = ctx.viewer;
    return {
      user: toUserModel(user),
      grants: [...user.grants].sort().map((g) => GrantEnum[g]),
      mayDecideApprovals: user.isAdmin || user.grants.has('AGENT_APPROVE'),
    };
  }
}
