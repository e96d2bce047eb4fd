import type { EntityManager } from 'typeorm';

/** The part of a node-postgres client or pool a statement needs. */
interface PgQueryable {
  query(text: string, values: readonly unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * Runs one statement on the manager's connection: the transaction's (`managerOf`), else any
 * connection of TypeORM's pool, for this statement only, without a TypeORM query runner. The
 * rows come back as from `manager.query` for a SELECT or a statement with RETURNING. Like
 * every statement with parameters, it goes as a prepared statement (statement-cache.ts).
 *
 * why: for statements sent once per agent step (P5 in docs/benchmarks.md) the query runner and
 * entity manager TypeORM builds around a statement outside a transaction cost about as much
 * CPU as the statement itself.
 */
export async function directQuery<T>(
  manager: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner;
  const target = runner
    ? ((await runner.connect()) as PgQueryable)
    : (manager.connection.driver as unknown as { master: PgQueryable }).master;
  return (await target.query(text, values)).rows as T[];
}
