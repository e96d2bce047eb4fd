import { Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { AuthUser } from '../../../platform/auth/auth-user';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { GrantEnum, UserModel, ViewerModel } from './user.model';

export function toUserModel(user: AuthUser): UserModel {
  return {
    id: String(user.id),
    username: user.username,
    displayName: user.displayName,
    locale: user.locale,
    isAdmin: user.isAdmin,
    groups: user.groups.map((g) => ({
      id: String(g.id),
      name: g.name,
      grants: g.grants.map((x) => GrantEnum[x]),
    })),
  };
}

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
