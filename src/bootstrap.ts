import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger as PinoLogger } from 'nestjs-pino';
import type { NextFunction, Request, Response } from 'express';
import type { CorsOptionsDelegate } from '@nestjs/common/interfaces/external/cors-options.interface';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { DatabaseTarget } from './platform/database/data-source-options';
import { AuthFailureLimiter } from './platform/auth/auth-failures';
import { Authenticator } from './platform/auth/authenticator';
import { earlyTokenCheck } from './platform/graphql/early-token-check';
import { API_VALIDATION, CompiledValidationPipe } from './platform/http/compiled-validation.pipe';
import { originAllowed } from './platform/http/origin-policy';
import { requestIdScope } from './platform/logging/logger-params';
import { nestLogLevels, StartupQuietLogger } from './platform/logging/startup-quiet-logger';
import { mountWebClient } from './platform/web/web-client';

type BodyRefusal = { readonly status: number; readonly message: string };

const TOO_LARGE: BodyRefusal = { status: 413, message: 'Request body too large (limit 1 MB)' };
const MALFORMED: BodyRefusal = { status: 400, message: 'Malformed request body' };

/** What a body the JSON parser refused is answered with, by the parser's error type. */
const BODY_REFUSALS: Readonly<Record<string, BodyRefusal>> = {
  'entity.too.large': TOO_LARGE,
  'entity.parse.failed': MALFORMED,
  // why: the JSON parser reads UTF-8 (and UTF-16 / 32) only, and decompresses what zlib knows;
  // anything else was a 415 in Express's own shape, logged as a server fault with its stack.
  'charset.unsupported': { status: 415, message: 'Unsupported charset: send the body as UTF-8' },
  'encoding.unsupported': {
    status: 415,
    message: 'Unsupported Content-Encoding: send the body as is, or gzip, deflate or br',
  },
};

function bodyRefusal(e: { type?: string; status?: number } | null): BodyRefusal | null {
  const known = e?.type ? BODY_REFUSALS[e.type] : undefined;
  if (known) return known;
  // why: the parser's other errors of the client's making (an aborted body, a wrong length)
  // carry 400 or 413.
  if (e?.status === 413) return TOO_LARGE;
  if (e?.status === 400) return MALFORMED;
  return null;
}

/**
 * Refuses over-large, malformed or undecodable bodies as a GraphQL-shaped client error
 * (BAD_USER_INPUT), never a 500 and never logged as a fault.
 */
function bodyErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  const refusal = bodyRefusal(err as { type?: string; status?: number } | null);
  if (!refusal) return next(err);
  res
    .status(refusal.status)
    .json({ errors: [{ message: refusal.message, extensions: { code: 'BAD_USER_INPUT' } }] });
}

/**
 * CORS for `CORS_ORIGINS` plus the server's own origin (origin-policy.ts); a refused origin
 * gets no CORS headers (the browser blocks the answer) and a warning in the log.
 */
function corsDelegate(allowed: readonly string[]): CorsOptionsDelegate<Request> {
  const logger = new Logger('Cors');
  return (req, callback) => {
    const ok = originAllowed(req.headers, allowed);
    if (!ok)
      logger.warn({ origin: req.headers.origin, path: req.path }, 'origin not in CORS_ORIGINS refused');
    callback(null, { origin: ok });
  };
}

/** Creates the Nest application (not yet listening) for a configuration and a database. */
export async function createApp(config: AppConfig, database: DatabaseTarget): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, database), {
    bodyParser: false,
    // why: Nest's own start-up lines are buffered until pino (PlatformModule) takes over;
    // the level list only matters if the app fails before that.
    bufferLogs: true,
    logger: nestLogLevels(config.logLevel),
  });
  app.useLogger(new StartupQuietLogger(app.get(PinoLogger)));
  // why: first of all, so every later step (pino-http's line, the GraphQL error formatter)
  // sees the same request id.
  app.use(requestIdScope);
  // why: the token's round trip to the database overlaps the request log and the body parser.
  app.use(earlyTokenCheck(app.get(Authenticator), app.get(AuthFailureLimiter)));
  app.useBodyParser('json', { limit: '1mb' });
  app.use(bodyErrors);
  // why: the framework's name and version help nobody but someone looking for a known hole.
  app.disable('x-powered-by');
  // why: GraphQL answers are one user's data as of now (Cache-Control: no-store), so a hash of
  // every body for an ETag was work for nothing; static files keep theirs (serve-static's own).
  app.disable('etag');
  mountWebClient(
    app,
    config.nodeEnv === 'production',
    config.oidc?.webClientId
      ? { issuer: config.oidc.issuer, clientId: config.oidc.webClientId, scope: config.oidc.webScope }
      : null,
  );
  // why: class-validator failures surface as a 400 exception, which the GraphQL error
  // formatter maps to BAD_USER_INPUT; valid inputs pass a compiled check of the same rules.
  app.useGlobalPipes(new CompiledValidationPipe(API_VALIDATION));
  if (config.corsOrigins.length > 0) app.enableCors(corsDelegate(config.corsOrigins));
  Logger.flush();
  return app;
}
