import type { DataSource } from 'typeorm';

/**
 * Names of the code's migrations that the database has not run (in order). why not TypeORM's
 * `MigrationExecutor.getPendingMigrations`: it creates the migrations table first, and a command
 * that refuses an unmigrated database must leave it as it found it.
 */
export async function pendingMigrations(ds: DataSource): Promise<string[]> {
  const table = ds.options.migrationsTableName ?? 'migrations';
  const [{ present }] = await ds.query<[{ present: boolean }]>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [table],
  );
  const rows = present ? await ds.query<{ name: string }[]>(`SELECT name FROM "${table}"`) : [];
  const done = new Set(rows.map((r) => r.name));
  return ds.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !done.has(name));
}
