import { Field, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { PendingTurnModel, RunStepModel } from './run.model';

export enum RunEventKindEnum {
  STEP = 'STEP',
  /** The run waits for a decision; the stream stays open for the continuation. */
  WAITING = 'WAITING',
  /** Part of the answer as the model writes it (never stored). */
  TEXT_DELTA = 'TEXT_DELTA',
  TERMINAL = 'TERMINAL',
}
registerEnumType(RunEventKindEnum, { name: 'RunEventKind' });

export enum RunOutcomeEnum {
  DONE = 'DONE',
  AWAITING_APPROVAL = 'AWAITING_APPROVAL',
  AWAITING_INPUT = 'AWAITING_INPUT',
  ERROR = 'ERROR',
  GUARDRAIL_BLOCKED = 'GUARDRAIL_BLOCKED',
  CANCELLED = 'CANCELLED',
}
registerEnumType(RunOutcomeEnum, { name: 'RunOutcome' });

@ObjectType('TextDelta', {
  description:
    'Part of an answer as the model writes it; never stored. offset counts characters before text.',
})
export class TextDeltaModel {
  @Field(() => ID, { description: "The answer's message, or the turn's run while it is being written." })
  messageId: string;
  @Field(() => Int) turn: number;
  @Field(() => Int) offset: number;
  @Field() text: string;
  @Field({ description: 'The last delta of this answer.' }) final: boolean;
}

@ObjectType('RunEvent', {
  description:
    'Full live trace for admins (the playground): every step unfiltered, WAITING at each pause, then one terminal event once the run settles.',
})
export class RunEventModel {
  @Field(() => RunEventKindEnum) kind: RunEventKindEnum;
  @Field(() => ID) runId: string;
  @Field(() => RunStepModel, { nullable: true }) step: RunStepModel | null;
  @Field(() => TextDeltaModel, { nullable: true, description: 'TEXT_DELTA' }) delta?: TextDeltaModel | null;
  @Field(() => RunOutcomeEnum, { nullable: true }) outcome: RunOutcomeEnum | null;
  @Field(() => String, { nullable: true }) finalContent: string | null;
  @Field(() => PendingTurnModel, { nullable: true }) pending: PendingTurnModel | null;
  @Field(() => String, { nullable: true }) error: string | null;
}
