import { RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Params } from 'nestjs-pino';
import { DestinationStream, stdTimeFunctions } from 'pino';
import type { Options } from 'pino-http';
import type { AppConfig } from '../../config/app-config';

/** The response header carrying a request's correlation id (also accepted from the client). */
export const REQUEST_ID_HEADER = 'x-request-id';
const CLIENT_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The correlation id of an HTTP request: the client's `x-request-id` if sane, else a new UUID. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const already = (req as { id?: unknown }).id;
  if (typeof already === 'string') return already;
  const given = req.headers[REQUEST_ID_HEADER];
  const id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

const currentRequest = new AsyncLocalStorage<string>();

/**
 * Express middleware, mounted before everything else: gives the request its id (`req.id`, which
 * pino-http then logs) and keeps it for the code the request runs, so the GraphQL error
 * formatter can name the same id (`currentRequestId`).
 */
export function requestIdScope(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const id = requestId(req, res);
  (req as { id?: string }).id = id;
  currentRequest.run(id, next);
}

/** The id of the HTTP request being served, or undefined outside one (graphql-ws, workers). */
export function currentRequestId(): string | undefined {
  return currentRequest.getStore();
}

export type LogFormat = 'pretty' | 'json';

/**
 * `LOG_FORMAT` when set; else readable lines for a person at a terminal outside production,
 * and JSON lines (one object each) for production and for anything reading a pipe or a file.
 */
export function logFormatOf(
  config: Pick<AppConfig, 'logFormat' | 'nodeEnv'>,
  stdoutIsTty: boolean,
): LogFormat {
  if (config.logFormat) return config.logFormat;
  return config.nodeEnv !== 'production' && stdoutIsTty ? 'pretty' : 'json';
}

/**
 * Where log lines go: process.stdout, as JSON or through pino-pretty (synchronously, so lines
 * keep their order with the start-up banner). process.stdout rather than pino's own file
 * descriptor writer, so a test can read the lines of an in-process server.
 */
export function logDestination(format: LogFormat, colour: boolean): DestinationStream {
  if (format === 'json') return process.stdout;
  // why: loaded for readable lines only (a person at a terminal); production writes JSON.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({
    destination: process.stdout,
    sync: true,
    colorize: colour,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,req,res,responseTime',
    messageFormat:
      '{if context}[{context}] {end}{if req.method}{req.method} {req.url} {res.statusCode} {responseTime} ms (request {req.id}) {end}{msg}',
  });
}

const pathOnly = (url: string | undefined): string | undefined => url?.split('?')[0];

/**
 * nestjs-pino / pino-http settings: lines at `LOG_LEVEL` in the format of `logFormatOf` (JSON
 * or readable), one line per request with its
 * correlation id, method, path (no query string), status and duration. No body and no header
 * is ever logged (the serializers keep only those fields; redaction is a second net), so a
 * bearer token cannot reach the logs.
 */
export function loggerParams(config: AppConfig, stdoutIsTty = process.stdout.isTTY === true): Params {
  const destination = logDestination(logFormatOf(config, stdoutIsTty), stdoutIsTty);
  return {
    pinoHttp: [httpLoggerOptions(config), destination],
    // why: Nest 11 (path-to-regexp 8) names the wildcard; nestjs-pino's default '*' warns.
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
  };
}

/** The pino-http options of loggerParams (the destination aside). */
export function httpLoggerOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    timestamp: stdTimeFunctions.isoTime,
    genReqId: requestId,
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    autoLogging: {
      ignore: (req) =>
        req.url === '/health' || req.url === '/metrics' || (req.url ?? '').startsWith('/graphiql/assets/'),
    },
    // why: pino-http otherwise runs pino's standard serializers first (headers, remote address,
    // parsed query: the largest item of pino-http in a bare request's profile) and hands their
    // result to ours, which keeps three fields of it; ours read the request and response as is.
    wrapSerializers: false,
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
  };
}
