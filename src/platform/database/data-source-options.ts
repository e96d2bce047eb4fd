import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import { ENTITIES } from './entities';

/** Where the data lives: a PostgreSQL server, or an embedded PGlite instance. */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; pglite: PGlite };

/**
 * TypeORM options for a target. PGlite goes through TypeORM's own postgres driver via
 * PGlite's node-postgres adapter: one connection, so every transaction runs alone.
 */
export function dataSourceOptions(target: DatabaseTarget, poolSize = 10): DataSourceOptions {
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
      extra: { max: poolSize, connectionTimeoutMillis: 10_000, application_name: 'countersign' },
    };
  }
  // why: a query issued outside the single open transaction would otherwise wait forever
  // for the one connection; the timeout turns that into an error.
  return {
    ...base,
    extra: { ...createPgConfig(target.pglite), max: 1, connectionTimeoutMillis: 10_000 },
  };
}
