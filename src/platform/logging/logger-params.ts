import { RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Params } from 'nestjs-pino';
import { stdTimeFunctions } from 'pino';
import type { AppConfig } from '../../config/app-config';

/** The response header carrying a request's correlation id (also accepted from the client). */
export const REQUEST_ID_HEADER = 'x-request-id';
const CLIENT_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The correlation id of an HTTP request: the client's `x-request-id` if sane, else a new UUID. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

const pathOnly = (url: string | undefined): string | undefined => url?.split('?')[0];

/**
 * nestjs-pino / pino-http settings: JSON lines at `LOG_LEVEL`, one line per request with its
 * correlation id, method, path (no query string), status and duration. No body and no header
 * is ever logged (the serializers keep only those fields; redaction is a second net), so a
 * bearer token cannot reach the logs.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      timestamp: stdTimeFunctions.isoTime,
      genReqId: requestId,
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: {
        ignore: (req) => req.url === '/health' || (req.url ?? '').startsWith('/graphiql/assets/'),
      },
      serializers: {
        req: (req: { id?: unknown; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          url: pathOnly(req.url),
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
      redact: {
        paths: ['req.headers', 'res.headers', 'req.body', 'authorization', '*.authorization'],
        remove: true,
      },
    },
    // why: Nest 11 (path-to-regexp 8) names the wildcard; nestjs-pino's default '*' warns.
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
  };
}
