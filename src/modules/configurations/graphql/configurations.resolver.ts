import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { ConfigurationsAdminService } from '../application/configurations-admin.service';
import { ConfigurationsService } from '../application/configurations.service';
import { ConfigurationInput, TaskInput } from './configuration.input';
import { ConfigurationModel, TaskModel, toConfigurationModel, toTaskModel } from './configuration.model';

@Resolver(() => ConfigurationModel)
export class ConfigurationsResolver {
  constructor(
    private readonly reads: ConfigurationsService,
    private readonly admin: ConfigurationsAdminService,
  ) {}

  @Query(() => [ConfigurationModel])
  @Allow(Access.Authenticated)
  async configurations(@Ctx() ctx: RequestContext): Promise<ConfigurationModel[]> {
    return (await this.reads.listForViewer(ctx)).map(toConfigurationModel);
  }

  @Query(() => [TaskModel])
  @Allow(Access.Admin)
  async tasks(@Ctx() ctx: RequestContext): Promise<TaskModel[]> {
    return (await this.reads.listTasks(ctx)).map(toTaskModel);
  }

  @Mutation(() => ConfigurationModel)
  @Allow(Access.Admin)
  async upsertConfiguration(
    @Ctx() ctx: RequestContext,
    @Args('input') input: ConfigurationInput,
  ): Promise<ConfigurationModel> {
    return toConfigurationModel(await this.admin.upsertConfiguration(ctx, input));
  }

  @Mutation(() => TaskModel)
  @Allow(Access.Admin)
  async upsertTask(@Ctx() ctx: RequestContext, @Args('input') input: TaskInput): Promise<TaskModel> {
    return toTaskModel(await this.admin.upsertTask(ctx, input));
  }
}
