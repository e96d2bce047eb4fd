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
