import { Injectable } from '@nestjs/common';
import { EventBus } from '../../../platform/pubsub/event-bus';

export { WORK_CHANNEL } from '../persistence/run-rows';

/** The bus topic that tells workers there is work (a queued run, a recorded decision). */
export const WORK_TOPIC = 'work.available';

/**
 * Tells workers at once that there is new work, after the commit that made it, on the event bus
 * (this process's worker, or every instance's through Redis). Workers in processes of their own
 * LISTEN on PostgreSQL (`WORK_CHANNEL`) and hear of the work from the statement that wrote it,
 * at its commit (`NOTIFY_WORKERS`: a queued run's insert, a durable decision's record), so no
 * statement of its own follows the write. Workers also poll every second, so a lost signal only
 * costs latency.
 */
@Injectable()
export class WorkSignal {
  constructor(private readonly bus: EventBus) {}

  async notify(): Promise<void> {
    await this.bus.publish(WORK_TOPIC, {});
  }
}
