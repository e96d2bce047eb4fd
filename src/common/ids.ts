import { badInput } from './refusal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const SERIAL = /^[1-9][0-9]{0,9}$/;

/** Parses a numeric database id given as a GraphQL ID; BAD_USER_INPUT when malformed. */
export function parseSerialId(value: string, field = 'id'): number {
  if (!SERIAL.test(value) || Number(value) > 2_147_483_647) {
    throw badInput(`${field} is not a valid id`, { field });
  }
  return Number(value);
}

/** Whether `value` is a UUID as `parseUuid` takes it (any case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Parses a UUID given as a GraphQL ID; BAD_USER_INPUT when malformed. */
export function parseUuid(value: string, field = 'id'): string {
  if (!isUuid(value)) throw badInput(`${field} is not a valid UUID`, { field });
  return value.toLowerCase();
}
