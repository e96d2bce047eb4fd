import type { OnModuleInit } from '@nestjs/common';
import { Args, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { OperationPrefetch } from '../../../platform/graphql/operation-prefetch';
import { UsersService } from '../../auth';
import { rowOf, RunModel, toRunModel } from '../../runs';
import { DecideCommand, DecisionReceipt, DecisionsService } from '../application/decisions.service';
import { DecisionReads } from '../application/decision-reads';
import { DecisionRecords } from '../application/decision-records';
import { InboxService } from '../application/inbox.service';
import type { DecisionView } from '../core/decision-view';
import { toDecisionModels, toInboxItemModel } from './decision.mapper';
import {
  ApproveRunInput,
  DecisionModel,
  DecisionPathEnum,
  DecisionReceiptModel,
  DenyRunInput,
  InboxItemModel,
  SubmitRunInputInput,
} from './decision.model';

/** The decision mutations, whose first read starts as soon as Apollo knows the operation. */
const DECISION_FIELDS = ['approveRun', 'denyRun', 'submitRunInput'] as const;

@Resolver(() => RunModel)
export class DecisionsResolver implements OnModuleInit {
  constructor(
    private readonly decisionsService: DecisionsService,
    private readonly decisionReads: DecisionReads,
    private readonly records: DecisionRecords,
    private readonly inboxService: InboxService,
    private readonly users: UsersService,
    private readonly prefetch: OperationPrefetch,
  ) {}

  onModuleInit(): void {
    for (const field of DECISION_FIELDS) {
      this.prefetch.register(field, (args, ctx) =>
        this.decisionReads.prefetch(ctx, (args.input as { runId?: unknown } | undefined)?.runId),
      );
    }
  }

  @Mutation(() => DecisionReceiptModel)
  @Allow(Access.Authenticated)
  async approveRun(
    @Ctx() ctx: RequestContext,
    @Args('input') input: ApproveRunInput,
  ): Promise<DecisionReceiptModel> {
    return this.receipt(ctx, { ...input, kind: 'APPROVE' });
  }

  @Mutation(() => DecisionReceiptModel)
  @Allow(Access.Authenticated)
  async denyRun(
    @Ctx() ctx: RequestContext,
    @Args('input') input: DenyRunInput,
  ): Promise<DecisionReceiptModel> {
    return this.receipt(ctx, { ...input, kind: 'DENY' });
  }

  @Mutation(() => DecisionReceiptModel)
  @Allow(Access.Authenticated)
  async submitRunInput(
    @Ctx() ctx: RequestContext,
    @Args('input') input: SubmitRunInputInput,
  ): Promise<DecisionReceiptModel> {
    return this.receipt(ctx, { ...input, kind: 'INPUT' });
  }

  @Query(() => [InboxItemModel], {
    description:
      'The inbox: runs waiting for a decision that the viewer may make, longest wait first. For pages with cursors use inboxConnection.',
  })
  @Allow(Access.Authenticated)
  async inbox(
    @Ctx() ctx: RequestContext,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('offset', {
      type: () => Int,
      nullable: true,
      defaultValue: 0,
      deprecationReason: 'Use inboxConnection with `after`: an offset reads and skips every earlier row.',
    })
    offset: number | null,
  ): Promise<InboxItemModel[]> {
    const page = await this.inboxService.page(
      ctx.viewer,
      { first: first ?? 50, after: null, offset: offset ?? 0 },
      ctx,
    );
    return page.edges.map(({ entry }) => toInboxItemModel(entry, ctx.viewer.id));
  }

  @ResolveField(() => [DecisionModel])
  async decisions(@Ctx() ctx: RequestContext, @Parent() run: RunModel): Promise<DecisionModel[]> {
    return this.toModels(ctx, await this.records.listForRun(rowOf(run).id));
  }

  private async receipt(ctx: RequestContext, command: DecideCommand): Promise<DecisionReceiptModel> {
    const receipt: DecisionReceipt = await this.decisionsService.decide(ctx, command);
    const [decision] = await this.toModels(ctx, [receipt.decision]);
    return { decision: decision!, run: toRunModel(receipt.run), path: receipt.path as DecisionPathEnum };
  }

  private async toModels(ctx: RequestContext, decisions: readonly DecisionView[]): Promise<DecisionModel[]> {
    return toDecisionModels(this.users, ctx, decisions);
  }
}
