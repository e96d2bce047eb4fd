import { Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { WorkerStatusService } from '../application/worker-status.service';
import { WorkerStatusModel } from './worker-status.model';

@Resolver(() => WorkerStatusModel)
export class WorkerStatusResolver {
  constructor(private readonly service: WorkerStatusService) {}

  @Query(() => WorkerStatusModel)
  @Allow(Access.Admin)
  async workerStatus(@Ctx() ctx: RequestContext): Promise<WorkerStatusModel> {
    const s = await this.service.status(ctx);
    return {
      liveWorkers: s.liveWorkers,
      queued: s.queued,
      decisionsRecorded: s.decisionsRecorded,
      expiredLeases: s.expiredLeases,
      oldestWaitSeconds: s.oldestWaitSeconds,
      healthy: s.healthy,
    };
  }
}
