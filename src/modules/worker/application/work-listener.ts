import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { WORK_CHANNEL } from '../../runs';

/** The first reconnect waits this long, doubling after each failure up to LISTEN_MAX_BACKOFF_MS. */
export const LISTEN_FIRST_BACKOFF_MS = 500;
export const LISTEN_MAX_BACKOFF_MS = 30_000;

/**
 * Listens on PostgreSQL's `countersign_work` channel (the NOTIFY of WorkSignal) with a
 * dedicated connection and calls `onWork` for each notification, so a worker hears of new work
 * at once. Only with DATABASE_URL: PGlite delivers NOTIFY to the same session only, and the
 * embedded worker is woken through the in-process event bus instead. A lost connection is
 * re-opened with a doubling backoff; nothing here ever throws into the process. The worker's
 * one-second poll covers the time without a connection.
 */
@Injectable()
export class WorkListener {
  private readonly logger = new Logger(WorkListener.name);
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = true;
  private onWork: () => void = () => undefined;
  private ready = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** True while LISTEN is in effect on a live connection. */
  get listening(): boolean {
    return this.ready;
  }

  /** Opens the connection and LISTENs (in the background); a no-op without DATABASE_URL. */
  start(onWork: () => void): void {
    if (!this.config.databaseUrl || !this.stopped) return;
    this.stopped = false;
    this.onWork = onWork;
    void this.connect(this.config.databaseUrl);
  }

  /** Closes the connection and cancels any pending reconnect. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ready = false;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(url: string): Promise<void> {
    const client = new Client({ connectionString: url, application_name: 'countersign-listener' });
    client.on('error', (err: Error) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    client.on('notification', (msg) => {
      if (msg.channel === WORK_CHANNEL && this.client === client) this.onWork();
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${WORK_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.client !== client) return;
    this.ready = true;
    if (this.failures > 0) this.logger.log(`listening on ${WORK_CHANNEL} again`);
    this.failures = 0;
    // why: notifications sent while no connection listened are gone; one pass catches up.
    this.onWork();
  }

  /** Drops a broken connection (once) and schedules the next attempt unless stopped. */
  private lost(client: Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.ready = false;
    void client.end().catch(() => undefined);
    if (this.stopped || !this.config.databaseUrl) return;
    const delay = Math.min(LISTEN_MAX_BACKOFF_MS, LISTEN_FIRST_BACKOFF_MS * 2 ** this.failures);
    this.failures += 1;
    const reason = err instanceof Error ? err.message : 'connection closed';
    this.logger.warn(`LISTEN ${WORK_CHANNEL} lost (${reason}); retrying in ${delay} ms (polling meanwhile)`);
    const url = this.config.databaseUrl;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) void this.connect(url);
    }, delay);
  }
}
