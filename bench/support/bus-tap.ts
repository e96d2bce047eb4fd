import { performance } from 'node:perf_hooks';
import type { ProgressEvent, TraceEvent } from '../../src/modules/runs/application/run-events';
import { progressTopic, traceTopic } from '../../src/modules/runs/application/run-events';
import { EventBus } from '../../src/platform/pubsub/event-bus';
import type { BenchApp } from './app';

/** One event as the app published it, stamped with `performance.now()` at the publish. */
export interface Published<T> {
  readonly at: number;
  readonly event: T;
}

/**
 * Stamps the publish time of a run's events: a listener on the app's own EventBus (in-memory
 * PubSub, so listeners run synchronously inside `publish`, right after the commit that
 * produced the event, before any subscriber's per-event work). The subscribers' arrival
 * times use the same clock (the app runs in the bench process).
 */
export class BusTap {
  readonly progress: Array<Published<ProgressEvent>> = [];
  readonly trace: Array<Published<TraceEvent>> = [];

  private constructor(private readonly unsubscribe: Array<() => Promise<void>>) {}

  static async open(app: BenchApp, runId: string): Promise<BusTap> {
    const bus = app.app.get(EventBus);
    if (bus.distributed) throw new Error('the bus tap needs the in-memory bus (no REDIS_URL)');
    const unsubscribe: Array<() => Promise<void>> = [];
    const tap = new BusTap(unsubscribe);
    unsubscribe.push(
      await bus.subscribe<ProgressEvent>(progressTopic(runId), (event) =>
        tap.progress.push({ at: performance.now(), event }),
      ),
      await bus.subscribe<TraceEvent>(traceTopic(runId), (event) =>
        tap.trace.push({ at: performance.now(), event }),
      ),
    );
    return tap;
  }

  /** The first progress event published that matches. */
  firstProgress(match: (e: ProgressEvent) => boolean): Published<ProgressEvent> | undefined {
    return this.progress.find((p) => match(p.event));
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribe) await u();
  }
}
