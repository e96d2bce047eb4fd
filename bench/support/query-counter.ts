import { Client } from 'pg';

/** Queries the app's own pool sent during a window, in total and by shape. */
export interface QueryCount {
  readonly total: number;
  /** By statement shape (see `shapeOf`), most frequent first. */
  readonly byShape: ReadonlyArray<{ readonly shape: string; readonly count: number }>;
}

/** The application_name of the app's pool (src/platform/database/data-source-options.ts). */
const APP_NAME = 'countersign';

type QueryFn = (this: Client, ...args: unknown[]) => unknown;

/**
 * A short label for a statement: the verb and the first table it names, e.g.
 * `SELECT api_token`, `UPDATE run`, `INSERT run_step`. Enough to tell the per-event
 * authorisation reads from the step writes without keeping every statement.
 */
export function shapeOf(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim();
  const verb = (/^(\w+)/.exec(text)?.[1] ?? '?').toUpperCase();
  if (verb === 'START' || verb === 'BEGIN' || verb === 'COMMIT' || verb === 'ROLLBACK') return verb;
  const table = /\b(?:FROM|INTO|UPDATE)\s+"?(\w+)"?/i.exec(text)?.[1] ?? '?';
  return `${verb} ${table}`;
}

/**
 * Counts the statements the in-process app sends through its pool (pg clients whose
 * application_name is `countersign`), by patching `pg.Client.prototype.query` in the bench
 * process only. The bench's own raw clients use other application names and are not counted.
 * Counting is off until `start()`; the patch costs one property read per query.
 */
export class QueryCounter {
  private static installed: QueryCounter | null = null;
  private active = false;
  private total = 0;
  private readonly statements = new Map<string, number>();

  private constructor() {}

  /** The one counter of this process (installs the patch on first use). */
  static install(): QueryCounter {
    if (QueryCounter.installed) return QueryCounter.installed;
    const counter = new QueryCounter();
    const proto = Client.prototype as unknown as { query: QueryFn };
    const original = proto.query;
    proto.query = function patched(this: Client, ...args: unknown[]): unknown {
      if (counter.active) counter.note(this, args[0]);
      return original.apply(this, args);
    };
    QueryCounter.installed = counter;
    return counter;
  }

  private note(client: Client, statement: unknown): void {
    const params = (client as unknown as { connectionParameters?: { application_name?: string } })
      .connectionParameters;
    if (params?.application_name !== APP_NAME) return;
    const sql =
      typeof statement === 'string'
        ? statement
        : typeof (statement as { text?: unknown } | null)?.text === 'string'
          ? (statement as { text: string }).text
          : '';
    this.total++;
    // why: keyed by the statement text (the app's statements are parameterised, so there are
    // few of them); the shape is worked out once per text in peek(), not once per query.
    this.statements.set(sql, (this.statements.get(sql) ?? 0) + 1);
  }

  /** Starts a new window (clears the counts). */
  start(): void {
    this.total = 0;
    this.statements.clear();
    this.active = true;
  }

  /** Ends the window and returns what was counted in it. */
  stop(): QueryCount {
    this.active = false;
    return this.peek();
  }

  /** The counts so far, without ending the window. */
  peek(): QueryCount {
    const shapes = new Map<string, number>();
    for (const [sql, n] of this.statements) shapes.set(shapeOf(sql), (shapes.get(shapeOf(sql)) ?? 0) + n);
    const byShape = [...shapes.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([shape, count]) => ({ shape, count }));
    return { total: this.total, byShape };
  }
}
