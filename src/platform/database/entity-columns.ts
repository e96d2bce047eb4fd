import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { returnedRows } from './query-results';

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

  private columns() {
    return this.dataSource.getMetadata(this.entity).columns;
  }
}
