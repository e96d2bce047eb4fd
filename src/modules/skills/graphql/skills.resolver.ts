import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { SkillsService } from '../application/skills.service';
import { SkillInput } from './skill.input';
import { SkillModel, toSkillModel } from './skill.model';

@Resolver(() => SkillModel)
export class SkillsResolver {
  constructor(private readonly skills: SkillsService) {}

  @Mutation(() => SkillModel)
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
}
