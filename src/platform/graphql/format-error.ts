import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { isErrorCode } from '../../common/error-codes';
import { isRefusal, Refusal } from '../../common/refusal';

export interface FormatErrorOptions {
  readonly production: boolean;
  /** The id a fault is logged and answered under: the HTTP request's id where there is one. */
  readonly correlationId: () => string;
  readonly onFault: (error: unknown, correlationId: string) => void;
}

/**
 * Apollo's codes for a document that does not parse or validate: clients (Apollo Client,
 * GraphiQL, the graphql-http audits) look for them, so they pass through unchanged. They are
 * transport codes, not refusals, so they are not in the contract's ErrorCode enum.
 */
export const DOCUMENT_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED']);

const INPUT_CODES = new Set([
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

function stripSuggestions(message: string): string {
  return message.replace(/ Did you mean .*\?$/s, '');
}

/**
 * why: graphql-armor's limits (depth, aliases, directives, cost) are validation rules whose
 * messages start with "Syntax Error:", though the document parsed fine; a client would look for
 * a typo that is not there. A validation error is never a syntax error.
 */
function documentMessage(code: string, message: string, production: boolean): string {
  const plain = code === 'GRAPHQL_VALIDATION_FAILED' ? message.replace(/^Syntax Error: /, '') : message;
  return production ? stripSuggestions(plain) : plain;
}

/**
 * The one place that turns anything thrown into what a client sees: a `Refusal` keeps its
 * contract code (plus `retryable`, `runId`, details); parse and validation errors keep
 * GRAPHQL_PARSE_FAILED / GRAPHQL_VALIDATION_FAILED; coercion errors of values and
 * class-validator failures become BAD_USER_INPUT; everything else is a fault,
 * INTERNAL_SERVER_ERROR with its details hidden and logged under a correlation id.
 */
export function formatGraphQLError(
  formatted: GraphQLFormattedError,
  error: unknown,
  options: FormatErrorOptions,
): GraphQLFormattedError {
  const original = refusalBehind(error) ?? unwrapResolverError(error);
  const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
  if (isRefusal(original)) {
    return {
      ...base,
      message: original.message,
      extensions: { ...original.details, code: original.code, retryable: original.retryable },
    };
  }
  const validation = validationFailure(original);
  if (validation) {
    return { ...base, message: validation, extensions: { code: 'BAD_USER_INPUT' } };
  }
  if (isThrottle(original)) {
    return { ...base, message: 'Too many requests', extensions: { code: 'RATE_LIMITED', retryable: true } };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && DOCUMENT_CODES.has(code)) {
    return {
      ...base,
      message: documentMessage(code, formatted.message, options.production),
      extensions: { code },
    };
  }
  if (typeof code === 'string' && INPUT_CODES.has(code)) {
    const message = options.production ? stripSuggestions(formatted.message) : formatted.message;
    return { ...base, message, extensions: { code: 'BAD_USER_INPUT' } };
  }
  if (typeof code === 'string' && isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') {
    return { ...base, extensions: { code } };
  }
  if (error instanceof GraphQLError && !error.path && isRequestError(error.originalError)) {
    // why: errors without a resolver behind them (armor's limits, coercion of variables,
    // which graphql-ws does not code the way Apollo does) are the client's input, not a fault.
    return { ...base, message: stripSuggestions(formatted.message), extensions: { code: 'BAD_USER_INPUT' } };
  }
  const correlationId = options.correlationId();
  options.onFault(original, correlationId);
  return {
    message: 'Internal server error',
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR', correlationId },
  };
}

/**
 * why: graphql-ws wraps what a subscription's event stream throws (e.g. FORBIDDEN once a token
 * was revoked) in a GraphQLError without a path, which `unwrapResolverError` leaves wrapped.
 */
function refusalBehind(error: unknown): Refusal | null {
  const inner = error instanceof GraphQLError ? error.originalError : undefined;
  return isRefusal(inner) ? inner : null;
}

function isRequestError(original: Error | undefined): boolean {
  return original === undefined || original instanceof GraphQLError;
}

function validationFailure(error: unknown): string | null {
  // class-validator failures through Nest's ValidationPipe arrive as a BadRequestException
  const e = error as { getStatus?: () => number; getResponse?: () => unknown } | null;
  if (e && typeof e.getStatus === 'function' && e.getStatus() === 400) {
    const response = e.getResponse?.() as { message?: unknown } | string | undefined;
    const message = typeof response === 'object' && response !== null ? response.message : response;
    if (Array.isArray(message)) return message.map(String).join('; ');
    return typeof message === 'string' ? message : 'Bad input';
  }
  return null;
}

function isThrottle(error: unknown): boolean {
  const e = error as { getStatus?: () => number } | null;
  return !!e && typeof e.getStatus === 'function' && e.getStatus() === 429;
}
