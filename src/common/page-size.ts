import { badInput } from './refusal';

/**
 * The rows a page asks for, at most `largest`. why one helper: every list answers a negative
 * size alike, with BAD_USER_INPUT naming the argument, where a clamp to 0 answered an empty
 * page saying `hasNextPage: true` with no cursor to go on from. 0 stays allowed (Relay's
 * `first: 0`: an empty page).
 */
export function pageSize(requested: number, largest: number, field = 'first'): number {
  if (!Number.isSafeInteger(requested) || requested < 0) {
    throw badInput(`${field} must be 0 or more`, { field });
  }
  return Math.min(requested, largest);
}

/** A deprecated offset: rows to skip, 0 or more (BAD_USER_INPUT otherwise). */
export function pageOffset(offset: number | null | undefined): number {
  if (offset == null) return 0;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw badInput('offset must be 0 or more', { field: 'offset' });
  return offset;
}
