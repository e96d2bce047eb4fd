import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
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
 * one at debug level, code and message, without a stack, and hands it on unchanged, so the
 * GraphQL error formatter gives the client its code. Without it Nest's exception handler logs
 * every refusal as an error with its stack trace. Faults are not caught here and are still logged
 * as errors (by Nest, and with a correlation id by the formatter).
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
    throw refusal;
  }
}
