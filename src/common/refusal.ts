import { ErrorCode, RETRYABLE_CODES } from './error-codes';

/**
 * An expected refusal: the operation is not carried out, and the client learns why through a
 * stable contract code. Thrown before any write, or inside a transaction so it rolls back.
 * One filter (platform/graphql) turns it into a GraphQL error with `extensions.code`.
 */
export class Refusal extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'Refusal';
    this.retryable = RETRYABLE_CODES.has(code);
  }
}

export const notFound = (what = 'Not found'): Refusal => new Refusal('NOT_FOUND', what);
export const forbidden = (what = 'Forbidden'): Refusal => new Refusal('FORBIDDEN', what);
export const badInput = (what: string, details: Record<string, unknown> = {}): Refusal =>
  new Refusal('BAD_USER_INPUT', what, details);

export function isRefusal(error: unknown): error is Refusal {
  return error instanceof Refusal;
}
