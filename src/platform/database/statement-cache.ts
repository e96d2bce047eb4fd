import { createHash } from 'node:crypto';
import { Client, type QueryConfig } from 'pg';

/**
 * How many statements one connection keeps prepared. A statement past the limit is sent
 * unnamed (parsed and planned on every call, as without the cache): the server keeps each
 * prepared statement and its plan for the session, so this bounds what a session holds.
 */
export const PREPARED_PER_CONNECTION = 256;

/** Longer texts are one-offs (seeds, bulk inserts with generated value lists): sent unnamed. */
const MAX_TEXT_LENGTH = 16_384;

/** Names by text for the whole process; bounded, a text past the bound is digested per call. */
const names = new Map<string, string>();
const MAX_NAMES = 4_096;

/**
 * A whole-row projection (`SELECT *`, `RETURNING r.*`). why: a prepared statement keeps its
 * result type, and one with `*` fails once a migration adds a column to its table while this
 * process runs ("cached plan must not change result type"); such statements go unnamed.
 */
const STAR_PROJECTION = /(?:\bSELECT|\bRETURNING|,)\s*(?:"?\w+"?\.)?\*/i;

/** The statement name for a text: a digest, so one name always stands for one text. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `cs_${createHash('sha1').update(text).digest('base64url')}`;
    if (names.size < MAX_NAMES) names.set(text, name);
  }
  return name;
}

/** Whether a statement is sent as a named prepared statement (see PreparingClient). */
export function isPreparable(text: string, values: unknown): boolean {
  return (
    Array.isArray(values) &&
    values.length > 0 &&
    text.length <= MAX_TEXT_LENGTH &&
    !STAR_PROJECTION.test(text)
  );
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * A node-postgres client that sends each statement with parameters as a named prepared
 * statement: the server parses it once per connection and, after a few executions, plans it
 * once (a generic plan where that costs no more than planning each call), where an unnamed
 * statement is parsed and planned on every call. The pool of every database target uses it
 * (data-source-options.ts); nothing else changes for the code that sends the statements.
 *
 * why: on the decision path most statements are lookups by key whose parse and plan took
 * longer on the server than their execution (PostgreSQL's statement log: bind 0.3-0.7 ms,
 * execute 0.02-0.2 ms). Statements without parameters (transaction control, DDL, scripts with
 * several commands) go as they came: a prepared statement holds one command only.
 */
export class PreparingClient extends Client {
  private readonly prepared = new Set<string>();

  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    if (typeof text === 'string' && isPreparable(text, values)) {
      const name = statementName(text);
      if (this.prepared.has(name) || this.prepared.size < PREPARED_PER_CONNECTION) {
        this.prepared.add(name);
        const named: QueryConfig = { name, text, values: values as unknown[] };
        return (super.query as QueryFn).call(this, named, callback) as never;
      }
    }
    return (super.query as QueryFn).apply(this, args) as never;
  }
}
