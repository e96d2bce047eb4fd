import {
  Args,
  Extensions,
  Field,
  ID,
  Int,
  ObjectType,
  registerEnumType,
  Resolver,
  Subscription,
} from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { SHARED_FRAMES } from '../../../platform/graphql/shared-frames';
import { RequestContext } from '../../../platform/auth/request-context';
import { ProgressEvent } from '../application/run-events';
import { RunProgressService } from '../application/run-progress.service';
import { RunStatusEnum } from './run.model';

export enum RunProgressKindEnum {
  PROGRESS = 'PROGRESS',
  SETTLED = 'SETTLED',
}
registerEnumType(RunProgressKindEnum, { name: 'RunProgressKind' });

@ObjectType('RunProgressEvent', {
  description: 'Count-only progress: no content, ever. What an approver without detail access may see.',
})
export class RunProgressEventModel {
  @Field(() => RunProgressKindEnum) kind: RunProgressKindEnum;
  @Field(() => ID) runId: string;
  @Field(() => Int) stepCount: number;
  @Field(() => RunStatusEnum) status: RunStatusEnum;
  @Field(() => Int, { description: 'How many pauses the run has had; grows with every new pause.' })
  turn: number;
  @Field({ description: 'True for a keep-alive PROGRESS that carries no new step.' }) keepAlive: boolean;
}

@Resolver(() => RunProgressEventModel)
export class RunProgressResolver {
  constructor(private readonly progress: RunProgressService) {}

  @Subscription(() => RunProgressEventModel, {
    description:
      'Count-only progress of one run. First event: the current state (a snapshot); open while the run waits; last: SETTLED once it stops moving (docs/streaming.md).',
    resolve: (e: ProgressEvent): RunProgressEventModel => ({
      kind: e.kind as RunProgressKindEnum,
      runId: e.runId,
      stepCount: e.stepCount,
      status: e.status as RunStatusEnum,
      turn: e.turn,
      keepAlive: e.keepAlive,
    }),
  })
  // why: the frame depends on the event alone: executed and serialised once for every subscriber.
  @Extensions({ [SHARED_FRAMES]: true })
  @Allow(Access.Authenticated)
  runProgress(
    @Ctx() ctx: RequestContext,
    @Args('runId', { type: () => ID }) runId: string,
  ): Promise<AsyncIterableIterator<ProgressEvent>> {
    return this.progress.open(ctx.viewer, runId);
  }
}
