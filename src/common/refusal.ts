import { ErrorCode, RETRYABLE_CODES } from './error-codes';

/**
 * An expected refusal: the operation is not carried out, and the client learns why through a
 * stable contract code. Thrown before any write, or inside a transaction so it rolls back.
 * One filter (platform/graphql) turns it into a GraphQL error with `extensions.code`.
 *
 * A refusal carries no stack trace: it is normal traffic (a second click, a stale page), logged
 * by its code and message only, and the trace was never read but always paid for: captured here,
 * then formatted when GraphQL wraps the refusal and copies its `stack`; together about 3% of the
 * CPU of a refused approveRun, the answer each of a storm's 63 losers gets (bench/README.md,
 * "Issue 13, thirteenth round").
 */
export class Refusal extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
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
