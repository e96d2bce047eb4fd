import type { QueryRunner } from 'typeorm';

/**
 * CONCURRENTLY where the migration runs outside a transaction (it asks for that: `transaction =
 * false`, honoured by `runMigrations`); TypeORM's revert opens one anyway, and there a plain
 * build is the only one PostgreSQL allows.
 */
export const concurrently = (queryRunner: QueryRunner): string =>
  queryRunner.isTransactionActive ? '' : 'CONCURRENTLY';

/**
 * Builds an index (`definition`: `ON table (...) [WHERE ...]`) CONCURRENTLY where it can, so
 * writes go on meanwhile. A build that fails leaves an invalid index behind, so it is dropped
 * first: running the migration again after a failure rebuilds it.
 */
export async function buildIndex(queryRunner: QueryRunner, name: string, definition: string): Promise<void> {
  const c = concurrently(queryRunner);
  await queryRunner.query(`DROP INDEX ${c} IF EXISTS "${name}"`);
  await queryRunner.query(`CREATE INDEX ${c} "${name}" ${definition}`);
}
