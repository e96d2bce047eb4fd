import { Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { UsersService } from '../../auth';
import { PendingTurnModel } from '../../runs';
import { ApprovalQuorum } from '../application/approval-quorum';
import { toDecisionModels } from './decision.mapper';
import { DecisionModel } from './decision.model';

@Resolver(() => PendingTurnModel)
export class PendingApprovalsResolver {
  constructor(
    private readonly quorum: ApprovalQuorum,
    private readonly users: UsersService,
  ) {}

  @ResolveField(() => [DecisionModel], {
    description:
      'Approvals recorded for this turn so far (a quorum counts them: approvals of approvalsRequired).',
  })
  async approvals(@Ctx() ctx: RequestContext, @Parent() pending: PendingTurnModel): Promise<DecisionModel[]> {
    if (pending.approvalsRequired <= 1) return [];
    return toDecisionModels(this.users, ctx, await this.quorum.approvalsOf(pending.runId, pending.turn));
  }
}
