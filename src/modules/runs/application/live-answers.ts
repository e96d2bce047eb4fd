import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RunEventsPublisher } from './run-events';

/** The answer text sent so far for a run executing in this process (the resume snapshot). */
export interface LiveAnswer {
  readonly runId: string;
  readonly turn: number;
  readonly text: string;
}

/**
 * The answers being written in this process: coalesces the provider's text deltas into
 * TEXT_DELTA events (one per `TEXT_DELTA_COALESCE_MS`) and keeps the text sent so far per run,
 * so a subscriber that joins mid-answer gets it as its snapshot. Nothing here is stored.
 */
@Injectable()
export class LiveAnswers {
  private readonly answers = new Map<string, AnswerStream>();

  constructor(
    private readonly events: RunEventsPublisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Starts the answer of one segment (replacing an earlier segment's of the same run). */
  begin(runId: string, turn: number): AnswerStream {
    const stream = new AnswerStream(runId, turn, this.config.textDeltaCoalesceMs, (d) =>
      this.events.textDelta(runId, d),
    );
    this.answers.set(runId, stream);
    return stream;
  }

  /** Sends what is left and forgets the run's answer (the stored answer takes over). */
  end(stream: AnswerStream): void {
    stream.close();
    if (this.answers.get(stream.runId) === stream) this.answers.delete(stream.runId);
  }

  /** The text sent so far of a run being written here, or null. */
  current(runId: string): LiveAnswer | null {
    const s = this.answers.get(runId);
    return s && s.sent.length > 0 ? { runId, turn: s.turn, text: s.sent } : null;
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
  private closed = false;

  constructor(
    readonly runId: string,
    readonly turn: number,
    private readonly windowMs: number,
    private readonly publish: Publish,
  ) {}

  push(text: string): void {
    if (this.closed || text.length === 0) return;
    this.pending += text;
    if (this.windowMs === 0) return this.flush(false);
    this.timer ??= setTimeout(() => this.flush(false), this.windowMs);
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
    void this.publish({ messageId: this.runId, turn: this.turn, offset, text, final }).catch(() => undefined);
  }
}
