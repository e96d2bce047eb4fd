import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { hasGrant } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { EventBus, type Unsubscribe } from '../../../platform/pubsub/event-bus';
import { subscriptionStream } from '../../../platform/pubsub/subscription-stream';
import { forbidden } from '../../../common/refusal';
import {
  answerSoFarTopic,
  LiveAnswers,
  progressTopic,
  type LiveAnswer,
  RunsService,
  traceTopic,
  type ProgressEvent,
  type TextDeltaPayload,
  type TraceEvent,
} from '../../runs';
import type { ConversationStatus } from '../core/conversation-status';
import type { ConversationEntity } from '../persistence/conversation.entity';
import type { MessageEntity } from '../persistence/message.entity';

export const conversationTopic = (id: string): string => `conversation.${id}`;

/** A message as it crosses processes (JSON); rendered for the reader on delivery. */
export interface MessagePayload {
  readonly id: string;
  readonly role: string;
  readonly text: string;
  readonly notice: string | null;
  readonly noticeArgs: Record<string, unknown> | null;
  readonly runId: string | null;
  readonly createdAt: string;
}

export interface ConversationEventPayload {
  readonly kind: 'MESSAGE' | 'STATUS' | 'PROGRESS' | 'TEXT_DELTA';
  readonly conversationId: string;
  readonly status: ConversationStatus;
  readonly message?: MessagePayload | null;
  readonly stepCount?: number | null;
  /** TEXT_DELTA: part of the answer of the run the conversation is on (never stored). */
  readonly delta?: TextDeltaPayload | null;
  /** The run the conversation is on now (to follow its progress). */
  readonly activeRunId?: string | null;
}

export function toMessagePayload(m: MessageEntity): MessagePayload {
  return {
    id: String(m.id),
    role: m.role,
    text: m.text,
    notice: m.notice,
    noticeArgs: m.noticeArgs,
    runId: m.runId,
    createdAt: new Date(m.createdAt).toISOString(),
  };
}

/**
 * `conversationEvents`: MESSAGE when a message is added, STATUS when the status changes, and
 * PROGRESS with the step count of the run the conversation is on. For the owner only;
 * re-authorised for every event (a revoked token or a lost CHAT grant ends the stream).
 */
@Injectable()
export class ConversationEvents {
  constructor(
    private readonly bus: EventBus,
    private readonly authenticator: Authenticator,
    private readonly runs: RunsService,
    private readonly answers: LiveAnswers,
  ) {}

  /** Publishes the messages added and the status reached by one committed change. */
  async changed(conversation: ConversationEntity, messages: readonly MessageEntity[]): Promise<void> {
    const base = {
      conversationId: conversation.id,
      status: conversation.status as ConversationStatus,
      activeRunId: conversation.activeRunId,
    };
    for (const m of messages) {
      await this.bus.publish(conversationTopic(conversation.id), {
        ...base,
        kind: 'MESSAGE',
        message: toMessagePayload(m),
      } satisfies ConversationEventPayload);
    }
    await this.bus.publish(conversationTopic(conversation.id), {
      ...base,
      kind: 'STATUS',
    } satisfies ConversationEventPayload);
  }

  /** The live stream for the owner of `conversation` (the caller checked ownership). */
  open(viewer: AuthUser, conversation: ConversationEntity): AsyncIterableIterator<ConversationEventPayload> {
    const id = conversation.id;
    let status = conversation.status as ConversationStatus;
    let followed: { runId: string; unsubscribe: Unsubscribe } | null = null;
    let push: ((e: ConversationEventPayload) => void) | null = null;
    let lastCount = -1;
    /** Characters of the followed run's answer delivered so far (turn and end offset). */
    let text = { runId: '', turn: -1, end: 0, final: true };

    const follow = async (runId: string | null): Promise<void> => {
      if (followed?.runId === runId) return;
      const previous = followed;
      followed = null;
      if (previous) await previous.unsubscribe();
      if (!runId || !push) return;
      const emit = push;
      const counts = await this.bus.subscribe<ProgressEvent>(progressTopic(runId), (p) =>
        emit({ kind: 'PROGRESS', conversationId: id, status, stepCount: p.stepCount, activeRunId: runId }),
      );
      // why: the trace topic carries the answer's deltas; everything else on it stays admin-only.
      const deltas = await this.bus.subscribe<TraceEvent>(traceTopic(runId), (e) => {
        if (e.type === 'TEXT_DELTA') {
          emit({ kind: 'TEXT_DELTA', conversationId: id, status, delta: e.delta, activeRunId: runId });
        }
      });
      // why: a reader joining mid-answer gets the text so far as one delta at offset 0 from
      // the process writing it; deltas around it are cut by their offset (no gap, no repeat).
      const soFar = await this.bus.subscribe<LiveAnswer>(answerSoFarTopic(runId), (a) => {
        const delta = { messageId: runId, turn: a.turn, offset: 0, text: a.text, final: false };
        emit({ kind: 'TEXT_DELTA', conversationId: id, status, delta, activeRunId: runId });
      });
      const unsubscribe = async () => {
        await counts();
        await deltas();
        await soFar();
      };
      followed = { runId, unsubscribe };
      await this.answers.ask(runId);
      // why: steps recorded before this subscription became active are not missed: the
      // run's count as it is now comes first (a repeat of it is dropped below).
      const run = await this.runs.findRunById(runId);
      if (run && run.stepCount > 0) {
        emit({ kind: 'PROGRESS', conversationId: id, status, stepCount: run.stepCount, activeRunId: runId });
      }
    };

    return subscriptionStream<ConversationEventPayload, ConversationEventPayload>({
      subscribe: async (p) => {
        push = p;
        const own = await this.bus.subscribe<ConversationEventPayload>(conversationTopic(id), p);
        await follow(conversation.activeRunId);
        // why: `lost` lets the stream end with a clear error when Redis goes away under it.
        return Object.assign(
          async () => {
            push = null;
            await own();
            await follow(null);
          },
          { lost: own.lost },
        );
      },
      // why: the caller checked ownership with the user of the connection's start; a token
      // revoked or a CHAT grant lost since then ends the stream before anything is delivered.
      start: async (control) => {
        if (!allowed(await this.authenticator.reload(viewer), conversation)) {
          control.fail(forbidden('Access to this conversation was lost'));
        }
      },
      onEvent: async (event, control) => {
        if (!allowed(await this.authenticator.refresh(viewer), conversation)) {
          return control.fail(forbidden('Access to this conversation was lost'));
        }
        if (event.kind === 'TEXT_DELTA') {
          // why: only the run the conversation follows speaks; a chunk its segment flushed just
          // before the conversation left it (a Stop) arrives after the final delta that closed
          // its answer, and relayed it would reopen that answer on the reader's screen.
          if (!followed || event.activeRunId !== followed.runId) return;
          const delta = event.delta ? unseen(event.delta, text, event.activeRunId) : null;
          if (!delta) return;
          const end = delta.offset + delta.text.length;
          text = { runId: event.activeRunId ?? '', turn: delta.turn, end, final: delta.final };
          return control.emit({ ...event, status, delta });
        }
        if (event.kind === 'PROGRESS') {
          // why: a progress event of a run the conversation has left, or a repeat, says nothing new.
          if (followed && event.activeRunId !== followed.runId) return;
          if (event.stepCount === null || event.stepCount === undefined || event.stepCount <= lastCount)
            return;
          lastCount = event.stepCount;
          return control.emit({ ...event, status });
        }
        status = event.status;
        // why: a run settled before its segment noticed (a cancel) or elsewhere: the reader's
        // answer ends with a final delta before the notice that says why, never silently.
        if (!text.final && event.activeRunId !== undefined && event.activeRunId !== text.runId) {
          const delta = { messageId: text.runId, turn: text.turn, offset: text.end, text: '', final: true };
          text = { ...text, final: true };
          control.emit({ kind: 'TEXT_DELTA', conversationId: id, status, delta, activeRunId: text.runId });
        }
        if (event.activeRunId !== undefined) {
          if (event.activeRunId !== followed?.runId) lastCount = -1;
          await follow(event.activeRunId ?? null);
        }
        control.emit(event);
      },
    });
  }
}

/** The part of a delta not delivered yet (by offset), or null when nothing in it is new. */
function unseen(
  delta: TextDeltaPayload,
  seen: { runId: string; turn: number; end: number },
  runId: string,
): TextDeltaPayload | null {
  if (seen.runId !== runId || seen.turn !== delta.turn) return delta.offset === 0 ? delta : null;
  if (delta.offset > seen.end) return null;
  const skip = seen.end - delta.offset;
  if (skip >= delta.text.length && !(delta.final && skip === delta.text.length)) return null;
  return { ...delta, offset: seen.end, text: delta.text.slice(skip) };
}

/** The owner with a valid token and the chat still granted. */
function allowed(user: AuthUser | null, conversation: ConversationEntity): boolean {
  return user !== null && user.id === conversation.ownerId && (user.isAdmin || hasGrant(user, 'CHAT'));
}
