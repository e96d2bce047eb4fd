import type { EntityManager } from 'typeorm';

/** The part of a node-postgres client a prepared statement needs. */
interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `text` as the named prepared statement `name` on the manager's connection: the
 * transaction's (`managerOf`), else a pool connection taken for this statement only. The
 * rows come back as from `manager.query` for a statement with RETURNING or a SELECT.
 *
 * why: for statements sent once per agent step (P5 in docs/benchmarks.md), parsing and
 * planning cost about as much as the commit itself; a prepared statement is parsed once per
 * connection and its plan reused. A name stands for one text: never reuse it for another.
 */
export async function preparedQuery<T>(
  manager: EntityManager,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<T[]> {
  const inTransaction = manager.queryRunner;
  const runner = inTransaction ?? manager.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PgClient;
    return (await client.query({ name, text, values })).rows as T[];
  } finally {
    if (!inTransaction) await runner.release();
  }
}
