// What `EntityManager.query` hands back, read the same way everywhere.

const isUpdateResult = (result: unknown): result is [unknown[], number] =>
  Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number';

/** TypeORM's postgres driver answers an UPDATE / DELETE as [rows, affected], others as rows. */
export function affectedRows(result: unknown): number {
  if (isUpdateResult(result)) return result[1];
  return Array.isArray(result) ? result.length : 0;
}

/** The rows a statement RETURNING something gave back, whatever its command. */
export function returnedRows<T>(result: unknown): T[] {
  if (isUpdateResult(result)) return result[0] as T[];
  return Array.isArray(result) ? (result as T[]) : [];
}

/**
 * Whether `error` is PostgreSQL's answer to a statement (a severity and an SQLSTATE, as
 * node-postgres and PGlite report it, or TypeORM wrapping it): the statement failed as a whole and
 * changed nothing. A lost connection is not one: what it did is unknown.
 */
export function isStatementError(error: unknown): boolean {
  const e = error as { severity?: unknown; code?: unknown; driverError?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
    return true;
  return e.driverError !== undefined && e.driverError !== error && isStatementError(e.driverError);
}
