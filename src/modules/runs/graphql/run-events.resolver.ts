import { Args, Extensions, ID, Int, Resolver, Subscription } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { SHARED_FRAMES } from '../../../platform/graphql/shared-frames';
import { RequestContext } from '../../../platform/auth/request-context';
import type { PendingTurn } from '../../../agent';
import { TraceEvent } from '../application/run-events';
import { RunTraceService } from '../application/run-trace.service';
import { RunEventKindEnum, RunEventModel, RunOutcomeEnum } from './run-event.model';
import { PauseKindEnum, StepKindEnum } from './run.model';

export function toRunEventModel(event: TraceEvent): RunEventModel {
  if (event.type === 'STEP') {
    const s = event.step;
    return {
      kind: RunEventKindEnum.STEP,
      runId: event.runId,
      step: { ...s, kind: s.kind as StepKindEnum, at: new Date(s.at) },
      outcome: null,
      finalContent: null,
      pending: null,
      error: null,
    };
  }
  if (event.type === 'TEXT_DELTA') {
    return {
      kind: RunEventKindEnum.TEXT_DELTA,
      runId: event.runId,
      step: null,
      delta: event.delta,
      outcome: null,
      finalContent: null,
      pending: null,
      error: null,
    };
  }
  if (event.type === 'WAITING') {
    return {
      kind: RunEventKindEnum.WAITING,
      runId: event.runId,
      step: null,
      outcome: null,
      finalContent: null,
      error: null,
      pending: toPending(event.runId, event.pending, event),
    };
  }
  return {
    kind: RunEventKindEnum.TERMINAL,
    runId: event.runId,
    step: null,
    outcome: event.outcome as RunOutcomeEnum,
    finalContent: event.finalContent ?? null,
    error: event.error ?? null,
    pending: toPending(event.runId, event.pending ?? null, event),
  };
}

/** The turn as the runtime paused it, with the deadline and quorum the pause announced. */
function toPending(
  runId: string,
  p: PendingTurn | null,
  pause: { waitingSince?: string | null; expiresAt?: string | null; approvalsRequired?: number },
): RunEventModel['pending'] {
  return p
    ? {
        kind: p.kind as PauseKindEnum,
        turn: p.turn,
        turnDigest: p.digest,
        calls: p.calls.map((c) => ({ ...c, preview: [...c.preview] })),
        inputRequest: p.inputRequest
          ? {
              toolName: p.inputRequest.toolName,
              question: p.inputRequest.question,
              schema: p.inputRequest.schema,
            }
          : null,
        waitingSince: new Date(pause.waitingSince ?? Date.now()),
        expiresAt: pause.expiresAt ? new Date(pause.expiresAt) : null,
        approvalsRequired: pause.approvalsRequired ?? 1,
        runId,
      }
    : null;
}

@Resolver(() => RunEventModel)
export class RunEventsResolver {
  constructor(private readonly trace: RunTraceService) {}

  @Subscription(() => RunEventModel, {
    description:
      'Admin only: every step of one run, live and unfiltered, after afterSequence. WAITING marks a pause and the stream stays open for the continuation; TERMINAL once the run settles (docs/streaming.md).',
    resolve: (event: TraceEvent) => toRunEventModel(event),
  })
  // why: the frame depends on the event alone: executed and serialised once for every subscriber.
  @Extensions({ [SHARED_FRAMES]: true })
  @Allow(Access.Admin)
  runEvents(
    @Ctx() ctx: RequestContext,
    @Args('runId', { type: () => ID }) runId: string,
    @Args('afterSequence', { type: () => Int, nullable: true, defaultValue: 0 }) afterSequence: number | null,
  ): Promise<AsyncIterableIterator<TraceEvent>> {
    return this.trace.open(ctx.viewer, runId, afterSequence ?? 0);
  }
}
