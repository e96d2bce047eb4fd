import { badInput } from './refusal';

/**
 * A UUID as the API takes one (any case); input classes check ids with it too. why no `i` flag:
 * the compiled validation of input classes takes only patterns without flags.
 */
export const UUID_PATTERN =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
/** A numeric database id as the API takes one (no sign, no leading zero, ten digits at most). */
export const SERIAL_ID_PATTERN = /^[1-9][0-9]{0,9}$/;

/** Parses a numeric database id given as a GraphQL ID; BAD_USER_INPUT when malformed. */
export function parseSerialId(value: string, field = 'id'): number {
  if (!SERIAL_ID_PATTERN.test(value) || Number(value) > 2_147_483_647) {
    throw badInput(`${field} is not a valid id`, { field });
  }
  return Number(value);
}

/** Whether `value` is a UUID as `parseUuid` takes it (any case). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** Parses a UUID given as a GraphQL ID; BAD_USER_INPUT when malformed. */
export function parseUuid(value: string, field = 'id'): string {
  if (!isUuid(value)) throw badInput(`${field} is not a valid UUID`, { field });
  return value.toLowerCase();
}
