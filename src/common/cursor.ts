import { badInput } from './refusal';

/** One part of a sort key: timestamps travel as exact text (microseconds), ids as they are. */
export type CursorPart = string | number;

/**
 * Opaque page cursors for keyset pagination (`after`): base64url of `[list, ...sortKey]`.
 * The list's name is inside so that a cursor of one list is refused by another instead of
 * silently paging it from a wrong position. Clients must treat cursors as opaque strings;
 * the shape may change between releases.
 */
export function encodeCursor(list: string, key: readonly CursorPart[]): string {
  return Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
}

/**
 * The sort key of a cursor of `list` whose parts have the given types; BAD_USER_INPUT
 * (field `after`) when the cursor is malformed or belongs to another list.
 */
export function decodeCursor(
  list: string,
  cursor: string,
  shape: readonly ('string' | 'number')[],
): CursorPart[] {
  const invalid = () => badInput('after is not a cursor of this list', { field: 'after' });
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== shape.length + 1 || parsed[0] !== list) throw invalid();
  const key = parsed.slice(1) as unknown[];
  key.forEach((part, i) => {
    const ok =
      shape[i] === 'number'
        ? typeof part === 'number' && Number.isSafeInteger(part)
        : typeof part === 'string';
    if (!ok) throw invalid();
  });
  return key as CursorPart[];
}

/** An exact timestamp as PostgreSQL prints it for a cursor (`timestamptz` text, microseconds). */
export const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor part that must be one of our exact timestamps (BAD_USER_INPUT otherwise). */
export function cursorTimestamp(part: CursorPart): string {
  if (typeof part !== 'string' || !TIMESTAMP_TEXT.test(part)) {
    throw badInput('after is not a cursor of this list', { field: 'after' });
  }
  return part;
}
