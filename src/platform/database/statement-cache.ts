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

/**
 * What each text is sent as, for the whole process: its statement name, or null where it goes
 * unnamed (see `nameFor`). Bounded; a text past the bound is judged and digested per call.
 * why a memo: the judgement (a regular expression over the text) and the digest cost more CPU
 * than a map lookup, and the same few texts are sent over and over.
 */
const names = new Map<string, string | null>();
const MAX_NAMES = 4_096;

/**
 * A whole-row projection (`SELECT *`, `RETURNING r.*`). why: a prepared statement keeps its
 * result type, and one with `*` fails once a migration adds a column to its table while this
 * process runs ("cached plan must not change result type"); such statements go unnamed.
 */
const STAR_PROJECTION = /(?:\bSELECT|\bRETURNING|,)\s*(?:"?\w+"?\.)?\*/i;

/** The statement name for a text: a digest, so one name always stands for one text. */
function statementName(text: string): string {
  return `cs_${createHash('sha1').update(text).digest('base64url')}`;
}

/**
 * The text's statement name, or null where it goes unnamed whatever its values: over 16 KB
 * (one-offs: seeds, bulk inserts with generated value lists), or a whole-row projection.
 */
function nameFor(text: string): string | null {
  let name = names.get(text);
  if (name === undefined) {
    name = text.length <= MAX_TEXT_LENGTH && !STAR_PROJECTION.test(text) ? statementName(text) : null;
    if (names.size < MAX_NAMES) names.set(text, name);
  }
  return name;
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
    const name =
      typeof text === 'string' && Array.isArray(values) && values.length > 0 ? nameFor(text) : null;
    if (name !== null) {
      if (this.prepared.has(name) || this.prepared.size < PREPARED_PER_CONNECTION) {
        this.prepared.add(name);
        const named: QueryConfig = { name, text: text as string, values: values as unknown[] };
        return (super.query as QueryFn).call(this, named, callback) as never;
      }
    }
    return (super.query as QueryFn).apply(this, args) as never;
  }
}
