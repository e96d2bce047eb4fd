import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ChannelListener } from '../../../platform/database/channel-listener';
import { WORK_CHANNEL } from '../../runs';

export { LISTEN_FIRST_BACKOFF_MS, LISTEN_MAX_BACKOFF_MS } from '../../../platform/database/channel-listener';

/**
 * Listens on PostgreSQL's `countersign_work` channel (the NOTIFY of WorkSignal), so a worker
 * hears of new work at once. Only with DATABASE_URL: the embedded worker is woken through the
 * in-process event bus instead. The worker's one-second poll covers the time without a
 * connection.
 */
@Injectable()
export class WorkListener extends ChannelListener {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(config.databaseUrl, WORK_CHANNEL, WorkListener.name);
  }
}
