import { Logger } from '@nestjs/common';
import { Client } from 'pg';

/** The first reconnect waits this long, doubling after each failure up to LISTEN_MAX_BACKOFF_MS. */
export const LISTEN_FIRST_BACKOFF_MS = 500;
export const LISTEN_MAX_BACKOFF_MS = 30_000;

/**
 * Listens on one PostgreSQL NOTIFY channel with a dedicated connection and calls `onNotice`
 * for each notification, and once more each time LISTEN is (re)established (notifications
 * sent while nobody listened are gone: the caller catches up). Only with DATABASE_URL: PGlite
 * delivers NOTIFY to the same session only. A lost connection is re-opened with a doubling
 * backoff; nothing here ever throws into the process.
 */
export class ChannelListener {
  private readonly logger: Logger;
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = true;
  private onNotice: () => void = () => undefined;
  private ready = false;

  constructor(
    private readonly databaseUrl: string | null,
    private readonly channel: string,
    name: string,
  ) {
    this.logger = new Logger(name);
  }

  /** True while LISTEN is in effect on a live connection. */
  get listening(): boolean {
    return this.ready;
  }

  /** Opens the connection and LISTENs (in the background); a no-op without DATABASE_URL. */
  start(onNotice: () => void): void {
    if (!this.databaseUrl || !this.stopped) return;
    this.stopped = false;
    this.onNotice = onNotice;
    void this.connect(this.databaseUrl);
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
      if (msg.channel === this.channel && this.client === client) this.onNotice();
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.client !== client) return;
    this.ready = true;
    if (this.failures > 0) this.logger.log(`listening on ${this.channel} again`);
    this.failures = 0;
    // why: notifications sent while no connection listened are gone; one pass catches up.
    this.onNotice();
  }

  /** Drops a broken connection (once) and schedules the next attempt unless stopped. */
  private lost(client: Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.ready = false;
    void client.end().catch(() => undefined);
    if (this.stopped || !this.databaseUrl) return;
    const delay = Math.min(LISTEN_MAX_BACKOFF_MS, LISTEN_FIRST_BACKOFF_MS * 2 ** this.failures);
    this.failures += 1;
    const reason = err instanceof Error ? err.message : 'connection closed';
    this.logger.warn(`LISTEN ${this.channel} lost (${reason}); retrying in ${delay} ms`);
    const url = this.databaseUrl;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) void this.connect(url);
    }, delay);
  }
}
