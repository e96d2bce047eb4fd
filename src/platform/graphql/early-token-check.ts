import type { NextFunction, Request, Response } from 'express';
import type { AuthFailureLimiter } from '../auth/auth-failures';
import type { Authenticator } from '../auth/authenticator';
import type { AuthUser } from '../auth/auth-user';

/** The path GraphQL is served on over HTTP (graphql.setup.ts). */
export const GRAPHQL_PATH = '/graphql';

/** The remote address failed authentications are counted by (the socket's peer, no proxy trusted). */
export function remoteAddress(req: { socket?: { remoteAddress?: string } } | undefined): string {
  return req?.socket?.remoteAddress ?? 'unknown';
}

/** The token checks started for requests still on their way to the GraphQL context. */
const started = new WeakMap<object, Promise<AuthUser | null>>();

/**
 * Express middleware, mounted right after the request id: starts the bearer token's check of a
 * GraphQL request over HTTP as the request arrives, so its round trip to the database runs
 * while the request log, the body parser and Apollo do their part instead of after them. The
 * GraphQL context awaits it (`tokenCheckOf`); it is the same check at the same request, only
 * sent sooner. Nothing is started without an Authorization header or for an address that failed
 * too often: those requests are answered in the context, as before, without a lookup.
 */
export function earlyTokenCheck(authenticator: Authenticator, failures: AuthFailureLimiter) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const header = req.headers.authorization;
    if (
      header &&
      (req.method === 'POST' || req.method === 'GET') &&
      req.path === GRAPHQL_PATH &&
      failures.blockedFor(remoteAddress(req)) === 0
    ) {
      const check = authenticator.authenticate(header);
      // why: a request refused before its context (a malformed body, a 413) never awaits it.
      check.catch(() => undefined);
      started.set(req, check);
    }
    next();
  };
}

/**
 * The user behind the request's bearer token: the check `earlyTokenCheck` started for this very
 * request and header, or one started now (a request that came in another way, a test app
 * without the middleware). Null when the token is not valid.
 */
export function tokenCheckOf(
  req: Request | undefined,
  header: string,
  authenticator: Authenticator,
): Promise<AuthUser | null> {
  const early = req ? started.get(req) : undefined;
  if (early && req?.headers.authorization === header) {
    started.delete(req);
    return early;
  }
  return authenticator.authenticate(header);
}
