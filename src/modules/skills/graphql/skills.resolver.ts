import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { SkillsService } from '../application/skills.service';
import { SkillInput } from './skill.input';
import { SkillModel, toSkillModel } from './skill.model';
import { SkillVersionModel, toSkillVersionModel } from './skill-version.model';

@Resolver(() => SkillModel)
export class SkillsResolver {
  constructor(private readonly skills: SkillsService) {}

  @Mutation(() => SkillModel, {
    description:
      'Creates or edits a skill; changed guidance becomes a new DRAFT version (see skillVersions).',
  })
  @Allow(Access.Admin)
  async upsertSkill(@Ctx() ctx: RequestContext, @Args('input') input: SkillInput): Promise<SkillModel> {
    const skill = await this.skills.upsertSkill(ctx, {
      identifier: input.identifier,
      name: input.name,
      description: input.description ?? '',
      body: input.body,
      isProcess: input.isProcess ?? false,
      enabled: input.enabled ?? true,
    });
    return toSkillModel(skill);
  }

  @Query(() => [SkillVersionModel], { description: 'A skill’s versions, newest first (admins).' })
  @Allow(Access.Admin)
  async skillVersions(
    @Ctx() ctx: RequestContext,
    @Args('skillId', { type: () => ID }) skillId: string,
  ): Promise<SkillVersionModel[]> {
    return (await this.skills.skillVersions(ctx, skillId)).map(toSkillVersionModel);
  }

  @Mutation(() => SkillVersionModel, {
    description: 'Approves a DRAFT version; its author may not (SELF_APPROVAL_DENIED).',
  })
  @Allow(Access.Admin)
  async approveSkillVersion(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<SkillVersionModel> {
    return toSkillVersionModel(await this.skills.approveVersion(ctx, id));
  }

  @Mutation(() => SkillVersionModel, {
    description: 'Withdraws a version: never used again; processes pinned to it are dropped.',
  })
  @Allow(Access.Admin)
  async withdrawSkillVersion(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<SkillVersionModel> {
    return toSkillVersionModel(await this.skills.withdrawVersion(ctx, id));
  }
}
