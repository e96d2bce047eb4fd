import type { PGlite } from '@electric-sql/pglite';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import { ENTITIES } from './entities';
import { PreparingClient } from './statement-cache';

/** Where the data lives: a PostgreSQL server, or an embedded PGlite instance. */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; pglite: PGlite };

/** Limits on the server sessions of a pool (PostgreSQL only). */
export interface SessionLimits {
  /**
   * A transaction left idle longer than this is ended by the server and rolled back
   * (`idle_in_transaction_session_timeout`). The server sets it to the run lease: a process
   * paused or cut off inside a transaction past its lease may have had its run taken over, so
   * what it was about to commit must not land when it wakes, and its row locks must not stay.
   */
  readonly idleInTransactionSeconds?: number;
}

/**
 * TypeORM options for a target. PGlite goes through TypeORM's own postgres driver via
 * PGlite's node-postgres adapter: one connection, so every transaction runs alone.
 */
export function dataSourceOptions(
  target: DatabaseTarget,
  poolSize = 10,
  limits: SessionLimits = {},
): DataSourceOptions {
  const base = {
    type: 'postgres' as const,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migration',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // why: gen_random_uuid() is core since PostgreSQL 13; no extension to install.
    uuidExtension: 'pgcrypto' as const,
    installExtensions: false,
  };
  if (target.kind === 'postgres') {
    return {
      ...base,
      url: target.url,
      extra: {
        Client: PreparingClient,
        max: poolSize,
        connectionTimeoutMillis: 10_000,
        application_name: 'countersign',
        ...(limits.idleInTransactionSeconds
          ? {
              options: `-c idle_in_transaction_session_timeout=${Math.round(limits.idleInTransactionSeconds * 1000)}`,
            }
          : {}),
      },
    };
  }
  // why: PGlite's node-postgres adapter bundles PGlite; loaded here, on an embedded target only,
  // so a server on PostgreSQL does not carry it.
  type Adapter = typeof import('@electric-sql/pglite/node-postgres');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createPgConfig } = require('@electric-sql/pglite/node-postgres') as Adapter;
  // why: a query issued outside the single open transaction would otherwise wait forever
  // for the one connection; the timeout turns that into an error.
  return {
    ...base,
    extra: {
      ...createPgConfig(target.pglite),
      Client: PreparingClient,
      max: 1,
      connectionTimeoutMillis: 10_000,
    },
  };
}
