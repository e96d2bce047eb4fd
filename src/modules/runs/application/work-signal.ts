import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DATABASE_TARGET } from '../../../platform/database/database.module';
import type { DatabaseTarget } from '../../../platform/database/data-source-options';
import { EventBus } from '../../../platform/pubsub/event-bus';

/** The bus topic that tells workers there is work (a queued run, a recorded decision). */
export const WORK_TOPIC = 'work.available';
/** The PostgreSQL channel workers LISTEN on. */
export const WORK_CHANNEL = 'countersign_work';

/**
 * Tells workers at once that there is new work: on the event bus (in-process, or Redis across
 * instances) and, on PostgreSQL, with NOTIFY. Workers also poll every second, so a lost signal
 * only costs latency.
 */
@Injectable()
export class WorkSignal {
  private readonly logger = new Logger(WorkSignal.name);

  constructor(
    private readonly bus: EventBus,
    private readonly dataSource: DataSource,
    @Inject(DATABASE_TARGET) private readonly target: DatabaseTarget,
  ) {}

  async notify(): Promise<void> {
    await this.bus.publish(WORK_TOPIC, {});
    if (this.target.kind !== 'postgres') return;
    try {
      await this.dataSource.query(`SELECT pg_notify('${WORK_CHANNEL}', '')`);
    } catch (e) {
      this.logger.warn(`NOTIFY failed: ${(e as Error).message}`);
    }
  }
}
