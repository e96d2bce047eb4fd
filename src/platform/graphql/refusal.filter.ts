import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { GqlArgumentsHost } from '@nestjs/graphql';
import type { Response } from 'express';
import { GraphQLError, GraphQLResolveInfo, responsePathAsArray } from 'graphql';
import type { ErrorCode } from '../../common/error-codes';
import { Refusal } from '../../common/refusal';

const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
};

/**
 * Refusals are normal traffic (a stale page, a second click, a missing grant): this filter logs
 * one at debug level, code and message, without a stack, and hands it on located at its field
 * (`locatedRefusal`), so the GraphQL error formatter gives the client its code. Without it
 * Nest's exception handler logs every refusal as an error with its stack trace. Faults are not
 * caught here and are still logged as errors (by Nest, and with a correlation id by the
 * formatter).
 */
@Catch(Refusal)
export class RefusalFilter implements ExceptionFilter<Refusal> {
  private readonly logger = new Logger('Refusal');

  catch(refusal: Refusal, host: ArgumentsHost): void {
    this.logger.debug({ code: refusal.code, refusal: refusal.message }, 'refused');
    if (host.getType() === 'http') {
      // why: an HTTP route (not GraphQL) refused by the global guard; same JSON shape as a
      // GraphQL client error, instead of Nest's 500 for an unknown exception.
      const response = host.switchToHttp().getResponse<Response>();
      response.status(HTTP_STATUS[refusal.code] ?? 400).json({
        errors: [
          { message: refusal.message, extensions: { code: refusal.code, retryable: refusal.retryable } },
        ],
      });
      return;
    }
    throw locatedRefusal(refusal, GqlArgumentsHost.create(host).getInfo<GraphQLResolveInfo | undefined>());
  }
}

/**
 * The refusal as graphql-js would wrap it (the field's nodes and path, the refusal as the original
 * error), built here without a stack trace. graphql-js passes an error that already has its path
 * through as it is; wrapping a refusal itself, it captured a trace and then formatted it (its
 * GraphQLError copies the original's `stack` over its own), about 3% of the CPU of a storm of
 * refused decisions (bench/README.md, fifteenth round). Without resolver info (not a field) the
 * refusal goes on as it is.
 */
function locatedRefusal(refusal: Refusal, info: GraphQLResolveInfo | undefined): Error {
  if (!info?.path) return refusal;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new GraphQLError(refusal.message, {
      nodes: info.fieldNodes,
      path: responsePathAsArray(info.path),
      originalError: refusal,
    });
  } finally {
    Error.stackTraceLimit = limit;
  }
}
