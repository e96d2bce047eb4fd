import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId } from '../../../common/ids';
import { UsersService } from '../application/users.service';
import { CreateUserInput } from './identity.inputs';
import { toGroupModel, toUserModel } from './user.mapper';
import { GroupModel, UserModel } from './user.model';

@Resolver(() => UserModel)
export class UsersResolver {
  constructor(private readonly service: UsersService) {}

  @Query(() => [UserModel])
  @Allow(Access.Admin)
  async users(@Ctx() ctx: RequestContext): Promise<UserModel[]> {
    return (await this.service.list(ctx)).map(toUserModel);
  }

  @Query(() => [GroupModel])
  @Allow(Access.Admin)
  async groups(@Ctx() ctx: RequestContext): Promise<GroupModel[]> {
    return (await this.service.listGroups(ctx)).map(toGroupModel);
  }

  @Mutation(() => UserModel)
  @Allow(Access.Admin)
  async createUser(@Ctx() ctx: RequestContext, @Args('input') input: CreateUserInput): Promise<UserModel> {
    const user = await this.service.create(ctx, {
      ...input,
      groupIds: (input.groupIds ?? []).map((id) => parseSerialId(id, 'groupIds')),
    });
    return toUserModel(user);
  }
}
