/**
 * A row of another module's table read in the statement that reads the caller's own row, so a
 * use case that needs both pays one round trip (the decision reads its run, the run's
 * configuration and its subject page at once). The module that owns the table builds it (it
 * knows the table, its columns and how a row maps); the caller places it (it knows its own row
 * and which of its columns keys the join). Every column it selects is named `<alias>.<column>`,
 * so joined reads never collide with the caller's columns or with each other.
 */
export interface JoinedRead<T> {
  /** A LEFT JOIN of the table under `alias` where its key equals `on`, and its select list. */
  sql(alias: string, on: string): { readonly join: string; readonly columns: string };
  /** What the join found in one raw row of that statement; null where it found nothing. */
  read(raw: Readonly<Record<string, unknown>>, alias: string): T | null;
}

/** A joined column's name in the result: `<alias>.<column>` (quoted in the select list). */
export function joinedName(alias: string, column: string): string {
  return `${alias}.${column}`;
}

/** The same joined read with each row it finds mapped (a module's row to what it hands out). */
export function mappedJoin<T, U>(joined: JoinedRead<T>, map: (row: T) => U): JoinedRead<U> {
  return {
    sql: (alias, on) => joined.sql(alias, on),
    read: (raw, alias) => {
      const row = joined.read(raw, alias);
      return row === null ? null : map(row);
    },
  };
}
