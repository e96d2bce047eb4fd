import { Field, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('WorkerStatus')
export class WorkerStatusModel {
  @Field(() => Int)
  liveWorkers: number;

  @Field(() => Int)
  queued: number;

  @Field(() => Int)
  decisionsRecorded: number;

  @Field(() => Int)
  expiredLeases: number;

  @Field(() => Int, { nullable: true })
  oldestWaitSeconds: number | null;

  @Field(() => Boolean)
  healthy: boolean;
}
