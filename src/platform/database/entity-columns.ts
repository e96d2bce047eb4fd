import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { joinedName } from './joined-read';
import { returnedRows } from './query-results';

/** A joined read's column names under one alias (see `EntityColumns.joinedSql`). */
interface JoinedColumns {
  readonly columns: readonly string[];
  readonly names: readonly string[];
  readonly properties: readonly string[];
  /** The primary key's joined name: null there means the join found no row. */
  readonly key: string;
}

/**
 * Every column of an entity's table, named one by one under an alias (`r."id", r."status",
 * ...`), and raw rows of them as plain objects keyed by the entity's property names: for hot
 * statements that read or return whole rows without TypeORM's query builder.
 *
 * why named, never `r.*`: statements go to PostgreSQL prepared (statement-cache.ts), and a
 * prepared `*` fails once a migration adds a column while this process runs ("cached plan must
 * not change result type"). why not the query builder: building and hydrating through it cost
 * more CPU than the statement itself on the decision path (bench P1's profile). The values are
 * as node-postgres parses them (jsonb and arrays parsed, timestamps as Date), which is what the
 * entities hold: none of their columns has a transformer.
 */
export class EntityColumns<T> {
  private list: string | null = null;
  private readonly joinedByAlias = new Map<string, JoinedColumns>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly entity: EntityTarget<ObjectLiteral>,
    private readonly alias: string,
  ) {}

  /** The column list for a statement on the entity's table under the alias. */
  sql(): string {
    this.list ??= this.columns()
      .map((c) => `${this.alias}."${c.databaseName}"`)
      .join(', ');
    return this.list;
  }

  /** Raw rows of `sql()` (a SELECT, or an UPDATE ... RETURNING) by property name. */
  rows(result: unknown): T[] {
    const columns = this.columns();
    return returnedRows<Record<string, unknown>>(result).map(
      (raw) => Object.fromEntries(columns.map((c) => [c.propertyName, raw[c.databaseName]])) as T,
    );
  }

  /**
   * The column list for a joined read of the entity's table under `alias` (not the alias of
   * `sql()`), each column named `<alias>.<column>` (see joined-read.ts).
   */
  joinedSql(alias: string): string {
    const { columns, names } = this.joined(alias);
    return columns.map((c, i) => `${alias}."${c}" AS "${names[i]}"`).join(', ');
  }

  /** One raw row's columns of `joinedSql(alias)` by property name; null where the join found no row. */
  joinedRow(raw: Readonly<Record<string, unknown>>, alias: string): T | null {
    const { names, properties, key } = this.joined(alias);
    if (raw[key] == null) return null;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[properties[i]!] = raw[names[i]!];
    return row as T;
  }

  /** why cached: a joined read maps a row on every decision; the names never change. */
  private joined(alias: string): JoinedColumns {
    let joined = this.joinedByAlias.get(alias);
    if (!joined) {
      const columns = this.columns();
      const primary = columns.find((c) => c.isPrimary) ?? columns[0]!;
      joined = {
        columns: columns.map((c) => c.databaseName),
        names: columns.map((c) => joinedName(alias, c.databaseName)),
        properties: columns.map((c) => c.propertyName),
        key: joinedName(alias, primary.databaseName),
      };
      this.joinedByAlias.set(alias, joined);
    }
    return joined;
  }

  private columns() {
    return this.dataSource.getMetadata(this.entity).columns;
  }
}
