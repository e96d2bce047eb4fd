import { Args, ID, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { UserModel, UsersService, toUserModel } from '../../auth';
import {
  ConfigurationModel,
  ConfigurationsService,
  mayUseConfiguration,
  toConfigurationModel,
  toWithheldConfigurationModel,
} from '../../configurations';
import { runAccess } from '../core/run-access.policy';
import { mayReadOwnerGroups, mayReadRunConfiguration } from '../core/pending-visibility';
import { RunsService } from '../application/runs.service';
import { RunLists } from '../application/run-lists';
import { pageInfoOf } from '../../../platform/graphql/connection.model';
import { rowOf, toPendingModel, toRunModel, toStepModel } from './run.mapper';
import {
  PendingTurnModel,
  RunConnectionModel,
  RunFilterInput,
  RunModel,
  RunStepConnectionModel,
  StartRunInput,
  UsageModel,
  HandBackModel,
} from './run.model';
import { isWaiting } from '../core/run-status';

@Resolver(() => RunModel)
export class RunsResolver {
  constructor(
    private readonly service: RunsService,
    private readonly lists: RunLists,
    private readonly configurations: ConfigurationsService,
    private readonly users: UsersService,
  ) {}

  @Mutation(() => RunModel, {
    description:
      'Start a run of a configuration the viewer may use (admins: any). Returns at once, RUNNING or QUEUED; follow it with runProgress (or runEvents, admins).',
  })
  @Allow(Access.Authenticated)
  async startRun(@Ctx() ctx: RequestContext, @Args('input') input: StartRunInput): Promise<RunModel> {
    return toRunModel(await this.service.startRun(ctx, input));
  }

  @Query(() => RunModel, { nullable: true })
  @Allow(Access.Authenticated)
  async run(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<RunModel | null> {
    const run = await this.service.findRun(ctx, id);
    return run ? toRunModel(run) : null;
  }

  @Query(() => RunConnectionModel, {
    description:
      'Runs the viewer may read, newest first: own runs; all runs for admins. Page with `first` and `after` (pageInfo.endCursor); docs/pagination.md.',
  })
  @Allow(Access.Authenticated)
  async runs(
    @Ctx() ctx: RequestContext,
    @Args('filter', { type: () => RunFilterInput, nullable: true }) filter: RunFilterInput | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('offset', {
      type: () => Int,
      nullable: true,
      defaultValue: 0,
      deprecationReason: 'Use `after` with pageInfo.endCursor: an offset reads and skips every earlier row.',
    })
    offset: number | null,
    @Args('after', { type: () => String, nullable: true, description: 'Continue after this cursor.' })
    after: string | null,
  ): Promise<RunConnectionModel> {
    const page = await this.lists.runs(ctx, { ...(filter ?? {}), first: first ?? 50, offset, after });
    const cursors = page.edges.map((edge) => edge.cursor);
    return {
      nodes: page.edges.map((edge) => toRunModel(edge.run)),
      edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: toRunModel(edge.run) })),
      pageInfo: pageInfoOf(cursors, page.hasNextPage, after),
      hasMore: page.hasNextPage,
      page,
    };
  }

  @Mutation(() => RunModel)
  @Allow(Access.Authenticated)
  async cancelRun(
    @Ctx() ctx: RequestContext,
    @Args('runId', { type: () => ID }) runId: string,
  ): Promise<RunModel> {
    return toRunModel(await this.service.cancelRun(ctx, runId));
  }

  @ResolveField(() => ConfigurationModel, {
    description:
      'A decider without detail access who may not use the configuration gets it withheld: id, isActive, requireSecondApprover and privacyLevel kept; names, provider and model read "(withheld)", maxIterations 0, skills empty (docs/security.md).',
  })
  async configuration(@Ctx() ctx: RequestContext, @Parent() run: RunModel): Promise<ConfigurationModel> {
    const configuration = await this.configurations.getWithSkillsById(rowOf(run).configurationId);
    const readable = mayReadRunConfiguration(
      runAccess(ctx.viewer, rowOf(run)),
      mayUseConfiguration(ctx.viewer, configuration),
    );
    return readable ? toConfigurationModel(configuration) : toWithheldConfigurationModel(configuration);
  }

  @ResolveField(() => UserModel, {
    description: "The owner's groups are an empty list for a viewer without detail access.",
  })
  async owner(@Ctx() ctx: RequestContext, @Parent() run: RunModel): Promise<UserModel> {
    const owner = await this.users.findById(ctx, rowOf(run).ownerId);
    if (!owner) throw new Error('run owner vanished');
    const model = toUserModel(owner);
    return mayReadOwnerGroups(runAccess(ctx.viewer, rowOf(run))) ? model : { ...model, groups: [] };
  }

  @ResolveField(() => PendingTurnModel, {
    nullable: true,
    description: 'Set while WAITING_FOR_APPROVAL or WAITING_FOR_INPUT.',
  })
  async pending(@Ctx() ctx: RequestContext, @Parent() run: RunModel): Promise<PendingTurnModel | null> {
    const pending = await this.service.pending(ctx, rowOf(run));
    return pending ? toPendingModel(pending) : null;
  }

  // why: nullable so that a refusal nulls this field alone (with FORBIDDEN at its path), never
  // the run or the whole page around it (an approver's inbox asking for steps).
  @ResolveField(() => RunStepConnectionModel, {
    nullable: true,
    description:
      'Detail access only (owner or admin). Others get null with FORBIDDEN on these fields (steps, answer). Page with `first` and `after` (or the older `afterSequence`).',
  })
  async steps(
    @Ctx() ctx: RequestContext,
    @Parent() run: RunModel,
    @Args('afterSequence', { type: () => Int, nullable: true, defaultValue: 0 }) afterSequence: number | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 100 }) first: number | null,
    @Args('after', { type: () => String, nullable: true, description: 'Continue after this cursor.' })
    after: string | null,
  ): Promise<RunStepConnectionModel | null> {
    const page = await this.service.steps(ctx, rowOf(run), afterSequence ?? 0, first ?? 100, after);
    const nodes = page.nodes.map(toStepModel);
    return {
      nodes,
      edges: nodes.map((node, i) => ({ cursor: page.cursors[i]!, node })),
      pageInfo: pageInfoOf(page.cursors, page.hasMore, after),
      hasMore: page.hasMore,
    };
  }

  @ResolveField(() => String, {
    nullable: true,
    description: 'Null when not kept (privacy level, or the run went through a decision).',
  })
  answer(@Ctx() ctx: RequestContext, @Parent() run: RunModel): string | null {
    return this.service.answer(ctx, rowOf(run));
  }

  @ResolveField(() => HandBackModel, {
    nullable: true,
    description: 'The last recorded decision a worker handed back, while the run waits again.',
  })
  handBack(@Parent() run: RunModel): HandBackModel | null {
    const row = rowOf(run);
    const hb = row.handBack as { code?: string; at?: string } | null;
    if (!hb?.code || !isWaiting(row.status)) return null;
    return { code: hb.code, at: new Date(hb.at ?? row.updatedAt) };
  }

  // why: counts only, no content: every viewer of the run (deciders too) sees them, like iterations.
  @ResolveField(() => UsageModel, {
    nullable: true,
    description: 'Tokens and model calls so far, as stored at the last pause or settle (docs/budgets.md).',
  })
  usage(@Parent() run: RunModel): UsageModel {
    const row = rowOf(run);
    return {
      promptTokens: row.promptTokens,
      completionTokens: row.completionTokens,
      totalTokens: row.promptTokens + row.completionTokens,
      modelCalls: row.iterations,
    };
  }
}
