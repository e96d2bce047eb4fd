import { Logger } from '@nestjs/common';
import { FILTER_CATCH_EXCEPTIONS } from '@nestjs/common/constants';
import { ExternalExceptionsHandler } from '@nestjs/core/exceptions/external-exceptions-handler';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { GraphQLError, locatedError, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { Refusal } from '../../common/refusal';
import { RefusalFilter } from './refusal.filter';

/** Nest's handler for resolver errors, with the filter registered the way Nest registers it. */
function nestHandler(): ExternalExceptionsHandler {
  const filter = new RefusalFilter();
  const handler = new ExternalExceptionsHandler();
  handler.setCustomFilters([
    {
      func: filter.catch.bind(filter),
      exceptionMetatypes: Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, RefusalFilter.prototype) as [],
    },
  ]);
  return handler;
}

function host(type: string, args: unknown[] = []): ExecutionContextHost {
  const h = new ExecutionContextHost(args);
  h.setType(type);
  return h;
}

describe('RefusalFilter', () => {
  let error: jest.SpyInstance;
  let debug: jest.SpyInstance;
  beforeEach(() => {
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('hands a refusal without resolver info on unchanged and logs it at debug level without a stack', () => {
    const refusal = new Refusal('STALE_TURN', 'This proposal changed since it was shown');
    let thrown: unknown;
    try {
      void nestHandler().next(refusal, host('graphql'));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBe(refusal);
    expect(error).not.toHaveBeenCalled();
    expect(debug.mock.calls).toEqual([
      [{ code: 'STALE_TURN', refusal: 'This proposal changed since it was shown' }, 'refused'],
    ]);
    expect(JSON.stringify(debug.mock.calls)).not.toContain('refusal.filter.spec');
  });

  it('hands a refusal in a resolver on located at its field, which graphql-js keeps as it is', () => {
    const refusal = new Refusal('ALREADY_RESUMING', 'Another decision on this run was taken first');
    const operation = parse('mutation { approveRun(input: {}) { path } }')
      .definitions[0] as OperationDefinitionNode;
    const field = operation.selectionSet.selections[0] as FieldNode;
    const info = { fieldNodes: [field], path: { prev: undefined, key: 'approveRun', typename: 'Mutation' } };
    let thrown: unknown;
    try {
      void nestHandler().next(refusal, host('graphql', [undefined, {}, {}, info]));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(GraphQLError);
    const located = thrown as GraphQLError;
    expect({ message: located.message, path: located.path, locations: located.locations }).toEqual({
      message: refusal.message,
      path: ['approveRun'],
      locations: [{ line: 1, column: 12 }],
    });
    expect(located.originalError).toBe(refusal);
    expect(located.stack).not.toMatch(/\n\s+at /);
    expect(locatedError(located, [field], ['approveRun'])).toBe(located);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });

  it('leaves a fault to Nest, which logs it as an error with its stack', () => {
    const fault = new Error('connection lost');
    expect(() => nestHandler().next(fault, host('graphql'))).toThrow(fault);
    expect(error).toHaveBeenCalledWith(fault);
    expect(debug).not.toHaveBeenCalled();
  });

  it('answers a refusal on an HTTP route with its code in the JSON error shape', () => {
    const response = { status: jest.fn().mockReturnThis(), json: jest.fn().mockReturnThis() };
    new RefusalFilter().catch(
      new Refusal('FORBIDDEN', 'Not available over this transport'),
      host('http', [{}, response]),
    );
    expect(response.status).toHaveBeenCalledWith(403);
    expect(response.json).toHaveBeenCalledWith({
      errors: [
        { message: 'Not available over this transport', extensions: { code: 'FORBIDDEN', retryable: false } },
      ],
    });
    expect(error).not.toHaveBeenCalled();
  });
});
