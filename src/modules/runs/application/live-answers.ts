import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { EventBus, type Unsubscribe } from '../../../platform/pubsub/event-bus';
import { RunEventsPublisher } from './run-events';

/** A reader asks for the text so far of a run's answer (carries nothing). */
export const answerWantedTopic = (runId: string): string => `run.answer.wanted.${runId}`;
/** The text so far, from the process writing the answer (for the run's owner's stream only). */
export const answerSoFarTopic = (runId: string): string => `run.answer.sofar.${runId}`;

/** The answer text sent so far for a run executing in this process (the resume snapshot). */
export interface LiveAnswer {
  readonly runId: string;
  readonly turn: number;
  readonly text: string;
}

/**
 * The answers being written in this process: coalesces the provider's text deltas into
 * TEXT_DELTA events (the first at once, then at most one per `TEXT_DELTA_COALESCE_MS`) and keeps the text sent so far per run.
 * A reader joining mid-answer asks for it on the bus (`answerWantedTopic`) and the process
 * writing the answer, this one or another, answers on `answerSoFarTopic`: one way, in one
 * process or across instances. Nothing here is stored.
 */
@Injectable()
export class LiveAnswers {
  private readonly answers = new Map<string, { stream: AnswerStream; listening: Promise<Unsubscribe> }>();

  constructor(
    private readonly events: RunEventsPublisher,
    private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Starts the answer of one segment (replacing an earlier segment's of the same run). */
  begin(runId: string, turn: number): AnswerStream {
    const stream = new AnswerStream(runId, turn, this.config.textDeltaCoalesceMs, (d) =>
      this.events.textDelta(runId, d),
    );
    const listening = this.bus
      .subscribe(answerWantedTopic(runId), () => {
        if (stream.sent.length === 0) return;
        const soFar: LiveAnswer = { runId, turn, text: stream.sent };
        void this.bus.publish(answerSoFarTopic(runId), soFar).catch(() => undefined);
      })
      // why: without the bus (Redis lost) the answer still streams; only the catch-up is gone.
      .catch((): Unsubscribe => () => Promise.resolve());
    this.answers.set(runId, { stream, listening });
    return stream;
  }

  /** Sends what is left and forgets the run's answer (the stored answer takes over). */
  end(stream: AnswerStream): void {
    stream.close();
    const entry = this.answers.get(stream.runId);
    if (entry?.stream !== stream) return;
    this.answers.delete(stream.runId);
    void entry.listening.then((unsubscribe) => unsubscribe()).catch(() => undefined);
  }

  /** Asks the process writing a run's answer for the text so far (answered on `answerSoFarTopic`). */
  async ask(runId: string): Promise<void> {
    await this.bus.publish(answerWantedTopic(runId), {});
  }
}

type Publish = (delta: {
  messageId: string;
  turn: number;
  offset: number;
  text: string;
  final: boolean;
}) => Promise<void>;

/** One answer's deltas: buffered for the coalescing window, then published with their offset. */
export class AnswerStream {
  sent = '';
  private pending = '';
  private timer: NodeJS.Timeout | null = null;
  private lastFlushAt = -Infinity;
  private closed = false;

  constructor(
    readonly runId: string,
    readonly turn: number,
    private readonly windowMs: number,
    private readonly publish: Publish,
  ) {}

  /**
   * Takes a provider delta. why: a throttle, not a trailing debounce: the first text of a quiet
   * stream goes out at once (the reader sees the answer start without waiting a window), and
   * after that at most one delta per window carries what arrived meanwhile.
   */
  push(text: string): void {
    if (this.closed || text.length === 0) return;
    this.pending += text;
    if (this.timer) return;
    const wait = this.lastFlushAt + this.windowMs - performance.now();
    if (wait <= 0) return this.flush(false);
    this.timer = setTimeout(() => this.flush(false), wait);
  }

  /** The last delta (final), carrying what the window still held; once. */
  close(): void {
    if (this.closed) return;
    this.flush(true);
    this.closed = true;
  }

  private flush(final: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 && !final) return;
    if (this.pending.length === 0 && this.sent.length === 0) return;
    const text = this.pending;
    const offset = this.sent.length;
    // why: the snapshot text grows before the publish, so a subscriber that reads it while the
    // event is in flight drops that event by its offset instead of missing it.
    this.sent += text;
    this.pending = '';
    this.lastFlushAt = performance.now();
    void this.publish({ messageId: this.runId, turn: this.turn, offset, text, final }).catch(() => undefined);
  }
}
