import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { parseSerialId } from '../../../common/ids';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { IdentityGroupMappingsService } from '../application/identity-group-mappings.service';
import type { IdentityGroupMappingView } from '../core/identity-group-mapping';
import { CreateIdentityGroupMappingInput, IdentityGroupMappingModel } from './identity-group-mapping.model';
import { toGroupModel } from './user.mapper';

const toModel = (m: IdentityGroupMappingView): IdentityGroupMappingModel => ({
  id: String(m.id),
  claimValue: m.claimValue,
  group: toGroupModel(m.group),
  grantsAdmin: m.grantsAdmin,
  createdAt: m.createdAt,
});

@Resolver(() => IdentityGroupMappingModel)
export class IdentityGroupMappingsResolver {
  constructor(private readonly service: IdentityGroupMappingsService) {}

  @Query(() => [IdentityGroupMappingModel])
  @Allow(Access.Admin)
  async identityGroupMappings(@Ctx() ctx: RequestContext): Promise<IdentityGroupMappingModel[]> {
    return (await this.service.list(ctx)).map(toModel);
  }

  @Mutation(() => IdentityGroupMappingModel)
  @Allow(Access.Admin)
  async createIdentityGroupMapping(
    @Ctx() ctx: RequestContext,
    @Args('input') input: CreateIdentityGroupMappingInput,
  ): Promise<IdentityGroupMappingModel> {
    const groupId = parseSerialId(input.groupId, 'groupId');
    return toModel(
      await this.service.create(ctx, { ...input, groupId, grantsAdmin: input.grantsAdmin === true }),
    );
  }

  @Mutation(() => Boolean)
  @Allow(Access.Admin)
  async deleteIdentityGroupMapping(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<boolean> {
    return this.service.delete(ctx, parseSerialId(id, 'id'));
  }
}
