import { Injectable } from '@nestjs/common';
import type { PendingTurn, Step } from '../../../agent';
import { EventBus } from '../../../platform/pubsub/event-bus';
import type { RunStatus } from '../core/run-status';

/** The admin trace of one run: full steps (unfiltered when live), then one terminal event. */
export const traceTopic = (runId: string): string => `run.trace.${runId}`;
/** Runs entering or leaving a waiting state (the inbox); carries only the run id. */
export const INBOX_TOPIC = 'inbox.changed';

/** Count-only progress of one run: never any content. */
export const progressTopic = (runId: string): string => `run.progress.${runId}`;

export type RunOutcomeKind =
  'DONE' | 'AWAITING_APPROVAL' | 'AWAITING_INPUT' | 'ERROR' | 'GUARDRAIL_BLOCKED' | 'CANCELLED';

export interface TraceStep {
  readonly sequence: number;
  readonly kind: Step['kind'];
  readonly round: number;
  readonly durationMs: number;
  /** ISO time (events may cross processes as JSON). */
  readonly at: string;
  readonly payload: Record<string, unknown>;
}

/** Part of the answer as the model writes it; never stored. `offset` counts characters before `text`. */
export interface TextDeltaPayload {
  /** The answer's message id where one exists; the run id while the turn is being written. */
  readonly messageId: string;
  readonly turn: number;
  readonly offset: number;
  readonly text: string;
  /** The last delta of this answer (also sent, with empty text, when the segment ends early). */
  readonly final: boolean;
}

export type TraceEvent =
  | { readonly type: 'STEP'; readonly runId: string; readonly step: TraceStep }
  | { readonly type: 'TEXT_DELTA'; readonly runId: string; readonly delta: TextDeltaPayload }
  | {
      /** The run paused (waits for a decision); the trace stays open for the continuation. */
      readonly type: 'WAITING';
      readonly runId: string;
      readonly pending: PendingTurn | null;
      readonly waitingSince: string | null;
      /** The approval's deadline (ISO) and quorum, where the configuration sets them. */
      readonly expiresAt?: string | null;
      readonly approvalsRequired?: number;
    }
  | {
      readonly type: 'TERMINAL';
      readonly runId: string;
      readonly outcome: RunOutcomeKind;
      readonly finalContent?: string | null;
      readonly pending?: PendingTurn | null;
      readonly waitingSince?: string | null;
      readonly expiresAt?: string | null;
      readonly approvalsRequired?: number;
      readonly error?: string | null;
    };

export interface ProgressEvent {
  readonly kind: 'PROGRESS' | 'SETTLED';
  readonly runId: string;
  readonly stepCount: number;
  readonly status: RunStatus;
  readonly turn: number;
  readonly keepAlive: boolean;
}

/**
 * Publishes a run's events. Callers publish only after the write that produced the event
 * committed; each payload is built once per audience (trace, progress), not per subscriber.
 */
@Injectable()
export class RunEventsPublisher {
  constructor(private readonly bus: EventBus) {}

  async step(runId: string, step: TraceStep, status: RunStatus, turn: number): Promise<void> {
    await Promise.all([
      this.bus.publish(traceTopic(runId), { type: 'STEP', runId, step } satisfies TraceEvent),
      this.bus.publish(progressTopic(runId), {
        kind: 'PROGRESS',
        runId,
        stepCount: step.sequence,
        status,
        turn,
        keepAlive: false,
      } satisfies ProgressEvent),
    ]);
  }

  /** A status change without a step (a recorded decision): a PROGRESS with the same count. */
  async progress(runId: string, stepCount: number, status: RunStatus, turn: number): Promise<void> {
    await this.bus.publish(progressTopic(runId), {
      kind: 'PROGRESS',
      runId,
      stepCount,
      status,
      turn,
      keepAlive: false,
    } satisfies ProgressEvent);
  }

  /**
   * A coalesced text delta: on the trace topic only (admins, and the conversation stream of the
   * run's owner), never on the count-only progress topic.
   */
  async textDelta(runId: string, delta: TextDeltaPayload): Promise<void> {
    await this.bus.publish(traceTopic(runId), { type: 'TEXT_DELTA', runId, delta } satisfies TraceEvent);
  }

  /** A run entered or left the inbox (a waiting state). */
  async inboxChanged(runId: string): Promise<void> {
    await this.bus.publish(INBOX_TOPIC, { runId });
  }

  async keepAlive(runId: string, stepCount: number, turn: number): Promise<void> {
    await this.bus.publish(progressTopic(runId), {
      kind: 'PROGRESS',
      runId,
      stepCount,
      status: 'RUNNING',
      turn,
      keepAlive: true,
    } satisfies ProgressEvent);
  }

  /** The run stopped moving: a terminal trace event and SETTLED progress. */
  async settled(
    trace: Extract<TraceEvent, { type: 'TERMINAL' }>,
    progress: { stepCount: number; status: RunStatus; turn: number },
  ): Promise<void> {
    await Promise.all([
      this.bus.publish(traceTopic(trace.runId), trace),
      this.bus.publish(progressTopic(trace.runId), {
        kind: 'SETTLED',
        runId: trace.runId,
        ...progress,
        keepAlive: false,
      } satisfies ProgressEvent),
    ]);
  }
}
