import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from 'pg';

/** Queries the app's own pool sent during a window, in total and by shape. */
export interface QueryCount {
  readonly total: number;
  /** By statement shape (see `shapeOf`), most frequent first. */
  readonly byShape: ReadonlyArray<{ readonly shape: string; readonly count: number }>;
  /**
   * The same, split by the scope the statement was sent from (`within`): e.g. `request` and
   * `continuation` in P1; statements sent outside any scope are under `other`.
   */
  readonly scopes: Readonly<
    Record<string, { readonly total: number; readonly byShape: QueryCount['byShape'] }>
  >;
}

/** The application_name of the app's pool (src/platform/database/data-source-options.ts). */
const APP_NAME = 'countersign';

type QueryFn = (this: Client, ...args: unknown[]) => unknown;

/**
 * A short label for a statement: the verb and the table it works on, e.g. `SELECT api_token`,
 * `UPDATE run`, `INSERT run_step`; a statement with a CTE is labelled by both parts, e.g.
 * `WITH UPDATE run; INSERT run_step` (the step append). Only the top level counts: a
 * sub-select in the select list does not name the statement.
 */
export function shapeOf(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim();
  const verb = (/^(\w+)/.exec(text)?.[1] ?? '?').toUpperCase();
  if (verb === 'START' || verb === 'BEGIN' || verb === 'COMMIT' || verb === 'ROLLBACK') return verb;
  const top = topLevel(text);
  if (verb === 'WITH') {
    const inner = /\(([^]*)/.exec(text)?.[1] ?? '';
    // why: the CTE list is blanked out in `top`, so the first verb left is the main statement's.
    const main = /\b(SELECT|INSERT|UPDATE|DELETE)\b[^]*$/i.exec(top)?.[0] ?? '';
    return `WITH ${shapeOf(inner)}; ${shapeOf(main)}`;
  }
  // why: a SELECT without a table is named by what it calls (`SELECT pg_notify`, `SELECT 1`).
  const table =
    /\b(?:FROM|INTO|UPDATE)\s+"?(\w+)"?/i.exec(top)?.[1] ?? /^SELECT\s+(\w+)/i.exec(text)?.[1] ?? '?';
  return `${verb} ${table}`;
}

/** The text with everything inside parentheses blanked out (only the top level is left). */
function topLevel(text: string): string {
  let depth = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (depth === 0) out += ch;
    else out += ' ';
    if (ch === ')') depth = Math.max(0, depth - 1);
  }
  return out;
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
  /** Count by scope, then by statement text. */
  private readonly statements = new Map<string, Map<string, number>>();
  private readonly scope = new AsyncLocalStorage<string>();

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
    const scope = this.scope.getStore() ?? 'other';
    let texts = this.statements.get(scope);
    if (!texts) this.statements.set(scope, (texts = new Map()));
    // why: keyed by the statement text (the app's statements are parameterised, so there are
    // few of them); the shape is worked out once per text in peek(), not once per query.
    texts.set(sql, (texts.get(sql) ?? 0) + 1);
  }

  /**
   * Runs `fn` in a scope: statements it sends, and everything it starts asynchronously
   * (promises, timers, callbacks bound by the libraries), count under `scope`.
   */
  within<T>(scope: string, fn: () => T): T {
    return this.scope.run(scope, fn);
  }

  /**
   * Ends the scopes of this process: later statements count under `other`. why: while a scope
   * has been entered, Node 20 runs the storage's hook for every promise the process makes (in
   * the app too), a cost a later scenario's figures must not carry (P4 counts no scopes).
   */
  endScopes(): void {
    this.scope.disable();
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
    const all = new Map<string, number>();
    const scopes: Record<string, { total: number; byShape: QueryCount['byShape'] }> = {};
    for (const [scope, texts] of this.statements) {
      const shapes = new Map<string, number>();
      let total = 0;
      for (const [sql, n] of texts) {
        const shape = shapeOf(sql);
        shapes.set(shape, (shapes.get(shape) ?? 0) + n);
        all.set(shape, (all.get(shape) ?? 0) + n);
        total += n;
      }
      scopes[scope] = { total, byShape: ranked(shapes) };
    }
    return { total: this.total, byShape: ranked(all), scopes };
  }
}

function ranked(shapes: Map<string, number>): QueryCount['byShape'] {
  return [...shapes.entries()].sort((a, b) => b[1] - a[1]).map(([shape, count]) => ({ shape, count }));
}
