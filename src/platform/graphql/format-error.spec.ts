import { GraphQLError } from 'graphql';
import { Refusal } from '../../common/refusal';
import { formatGraphQLError, FormatErrorOptions } from './format-error';

function format(
  error: GraphQLError,
  production = false,
): ReturnType<typeof formatGraphQLError> & {
  faults: unknown[];
  loggedIds: string[];
} {
  const faults: unknown[] = [];
  const loggedIds: string[] = [];
  const options: FormatErrorOptions = {
    production,
    correlationId: () => 'request-7f3a',
    onFault: (e, id) => {
      faults.push(e);
      loggedIds.push(id);
    },
  };
  return { ...formatGraphQLError(error.toJSON(), error, options), faults, loggedIds };
}

describe('formatGraphQLError', () => {
  it('keeps a refusal code, its retryable flag and details', () => {
    const refusal = new Refusal('RATE_LIMITED', 'Too many operations', { retryAfterSeconds: 42 });
    const res = format(new GraphQLError('x', { path: ['viewer'], originalError: refusal }));
    expect(res.message).toBe('Too many operations');
    expect(res.extensions).toEqual({ retryAfterSeconds: 42, code: 'RATE_LIMITED', retryable: true });
  });

  it('keeps a refusal that graphql-ws wrapped without a path (thrown by a subscription stream)', () => {
    const refusal = new Refusal('FORBIDDEN', 'Access to this run was lost');
    const res = format(new GraphQLError(refusal.message, { originalError: refusal }));
    expect(res.extensions).toEqual({ code: 'FORBIDDEN', retryable: false });
    expect(res.faults).toEqual([]);
  });

  it('hides a fault: INTERNAL_SERVER_ERROR with a correlation id, no message, no stack', () => {
    const fault = new Error('connection string postgres://secret@db');
    const res = format(new GraphQLError(fault.message, { path: ['viewer'], originalError: fault }));
    expect(res.message).toBe('Internal server error');
    expect(Object.keys(res.extensions ?? {}).sort()).toEqual(['code', 'correlationId']);
    expect(res.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(res)).not.toContain('secret');
    expect(res.faults).toEqual([fault]);
    expect(res.extensions?.correlationId).toBe('request-7f3a'); // the request's id, as logged
    expect(res.loggedIds).toEqual(['request-7f3a']);
  });

  it('answers request errors (variable coercion, limits) with BAD_USER_INPUT', () => {
    const inner = new GraphQLError('Value "NOPE" does not exist in "PrivacyLevel" enum.');
    const coercion = new GraphQLError(`Variable "$input" got invalid value "NOPE"; ${inner.message}`, {
      originalError: inner,
    });
    expect(format(coercion).extensions).toEqual({ code: 'BAD_USER_INPUT' });
    const unCoded = new GraphQLError('Variable "$n" of required type "Int!" was not provided.');
    expect(format(unCoded).extensions).toEqual({ code: 'BAD_USER_INPUT' });
  });

  it("keeps Apollo's parse and validation codes; a limit is not called a syntax error", () => {
    const parse = new GraphQLError('Syntax Error: Expected Name, found <EOF>.', {
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
    expect(format(parse)).toMatchObject({
      message: 'Syntax Error: Expected Name, found <EOF>.',
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
    const depth = new GraphQLError('Syntax Error: Query depth limit of 10 exceeded, found 11.', {
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(format(depth)).toMatchObject({
      message: 'Query depth limit of 10 exceeded, found 11.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('strips field suggestions in production only', () => {
    const error = new GraphQLError('Cannot query field "grant" on type "Viewer". Did you mean "grants"?', {
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(format(error, true).message).toBe('Cannot query field "grant" on type "Viewer".');
    expect(format(error, false).message).toContain('Did you mean "grants"?');
  });

  it('never passes a stack trace through', () => {
    const error = new GraphQLError('bad', {
      extensions: { code: 'BAD_USER_INPUT', stacktrace: ['at secret.ts:1'], exception: { stacktrace: [] } },
    });
    expect(format(error).extensions).toEqual({ code: 'BAD_USER_INPUT' });
  });
});
