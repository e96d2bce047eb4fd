import type { EntityManager } from 'typeorm';

/** A named statement as node-postgres takes it. */
interface NamedStatement {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

/** The part of a node-postgres client or pool a prepared statement needs. */
interface PgQueryable {
  query(statement: NamedStatement): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `text` as the named prepared statement `name` on the manager's connection: the
 * transaction's (`managerOf`), else any connection of TypeORM's pool, for this statement
 * only. The rows come back as from `manager.query` for a SELECT or a statement with RETURNING.
 *
 * why: for statements sent once per agent step (P5 in docs/benchmarks.md), parsing and
 * planning cost about as much as the commit itself; a prepared statement is parsed once per
 * connection and its plan reused. Outside a transaction the pool is asked directly, without
 * a TypeORM query runner (and entity manager) built for one statement. A name stands for one
 * text: never reuse it for another.
 */
export async function preparedQuery<T>(
  manager: EntityManager,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<T[]> {
  const statement = { name, text, values };
  const runner = manager.queryRunner;
  const target = runner
    ? ((await runner.connect()) as PgQueryable)
    : (manager.connection.driver as unknown as { master: PgQueryable }).master;
  return (await target.query(statement)).rows as T[];
}
