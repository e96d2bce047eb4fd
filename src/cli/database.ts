import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { dataSourceOptions, DatabaseTarget } from '../platform/database/data-source-options';
import { pendingMigrations } from '../platform/database/pending-migrations';
import { openEmbeddedDatabase } from '../platform/database/pglite';
import { CliFailure } from './failure';

/** The database a CLI command works on, open and migrated. */
export interface CliDatabase {
  readonly dataSource: DataSource;
  /** True for the embedded PGlite in DATA_DIR, false for PostgreSQL. */
  readonly embedded: boolean;
  /** Where the data lives, for messages: the data directory or the URL without password. */
  readonly where: string;
  close(): Promise<void>;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the DATABASE_URL';
  }
}

/**
 * Runs the pending migrations where `migrate` is on, else refuses an unmigrated database
 * (a `CliFailure` naming the way out). Returns the names of the migrations it ran.
 */
export async function ensureSchema(ds: DataSource, migrate: boolean): Promise<string[]> {
  if (migrate) {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  }
  const pending = await pendingMigrations(ds);
  if (pending.length > 0) {
    throw new CliFailure(
      `The database schema is not up to date: ${pending.length} migration(s) pending (${pending.join(', ')}). ` +
        'Run `npm run migration:run` first, or set DB_MIGRATE=true to let the CLI run them.',
    );
  }
  return [];
}

/**
 * Opens the configured database (PostgreSQL where DATABASE_URL is set, else the embedded
 * one in DATA_DIR, locked for this process) and brings or checks its schema.
 * Throws `DataDirBusyError` when a server holds DATA_DIR, `CliFailure` when PostgreSQL
 * cannot be reached or the schema is not migrated.
 */
export async function openCliDatabase(config: AppConfig, log: (line: string) => void): Promise<CliDatabase> {
  // why: openEmbeddedDatabase takes DATA_DIR's lock before PGlite touches the files, so a
  // running server makes this fail at once (DataDirBusyError) instead of hanging.
  const embedded = config.databaseUrl ? null : await openEmbeddedDatabase(config.dataDir);
  const target: DatabaseTarget = embedded
    ? { kind: 'pglite', pglite: embedded.pglite }
    : { kind: 'postgres', url: config.databaseUrl ?? '' };
  const where = embedded ? `the embedded database in ${config.dataDir}` : redactUrl(config.databaseUrl ?? '');
  const dataSource = new DataSource(dataSourceOptions(target, 2));
  const close = async (): Promise<void> => {
    try {
      if (dataSource.isInitialized) await dataSource.destroy();
    } finally {
      await embedded?.close();
    }
  };
  try {
    try {
      await dataSource.initialize();
    } catch (e) {
      const err = e as Error & { code?: string };
      throw new CliFailure(`Cannot connect to ${where}: ${err.message || err.code || String(e)}`);
    }
    const applied = await ensureSchema(dataSource, config.migrate);
    if (applied.length > 0) log(`Applied migrations: ${applied.join(', ')}`);
  } catch (e) {
    await close();
    throw e;
  }
  return { dataSource, embedded: embedded !== null, where, close };
}
