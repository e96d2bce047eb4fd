import { Client } from 'pg';
import { currentRequestId } from '../../src/platform/logging/logger-params';

/** One statement a pooled connection sent, in the order the test process sent them. */
export interface LoggedStatement {
  /** Which connection sent it (numbered in the order connections were first seen). */
  readonly connection: number;
  /** The statement's text, whitespace collapsed. */
  readonly text: string;
  /** Its parameters, as handed to the driver. */
  readonly values: readonly unknown[];
  /** The prepared statement's name it went as; absent: sent unnamed (parsed and planned per call). */
  readonly name?: string;
  /**
   * The id of the HTTP request whose code sent it; absent for what runs outside one (the
   * worker's and the sweepers' passes, graphql-ws). why: a background pass may send a statement
   * in the middle of a request's, and a test counting a request's statements must not count it.
   */
  readonly requestId?: string;
}

/**
 * Records the statements every node-postgres connection of this process sends while it is
 * open: the app under test runs in the test process, so what its pool sends is seen here.
 * why: "the claim's transaction holds N statements" is a property of what goes over the wire,
 * which neither the responses nor the rows show.
 */
export class StatementLog {
  readonly statements: LoggedStatement[] = [];

  private constructor(private readonly original: Client['query']) {}

  static open(): StatementLog {
    // why: kept as it was found, to be put back; never called unbound (`apply` below).
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const original = Client.prototype.query;
    const log = new StatementLog(original);
    const numbers = new WeakMap<object, number>();
    let next = 0;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const [config, second] = args;
      const named =
        typeof config === 'string'
          ? null
          : (config as { text?: unknown; values?: unknown; name?: unknown } | null);
      const text = named ? named.text : config;
      const values = named ? named.values : second;
      if (typeof text === 'string') {
        if (!numbers.has(this)) numbers.set(this, next++);
        const requestId = currentRequestId();
        log.statements.push({
          connection: numbers.get(this)!,
          text: text.replace(/\s+/g, ' ').trim(),
          values: Array.isArray(values) ? values : [],
          ...(typeof named?.name === 'string' ? { name: named.name } : {}),
          ...(requestId ? { requestId } : {}),
        });
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query;
    return log;
  }

  /**
   * The statements of each transaction (START TRANSACTION .. COMMIT or ROLLBACK on one
   * connection), in the order they began, those two included.
   */
  transactions(): LoggedStatement[][] {
    const open = new Map<number, LoggedStatement[]>();
    const done: LoggedStatement[][] = [];
    for (const s of this.statements) {
      if (/^(START TRANSACTION|BEGIN)/i.test(s.text)) {
        const tx = [s];
        open.set(s.connection, tx);
        done.push(tx);
        continue;
      }
      const tx = open.get(s.connection);
      if (!tx) continue;
      tx.push(s);
      if (/^(COMMIT|ROLLBACK)/i.test(s.text)) open.delete(s.connection);
    }
    return done;
  }

  close(): void {
    Client.prototype.query = this.original;
  }
}
