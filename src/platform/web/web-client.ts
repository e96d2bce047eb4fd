import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { existsSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { projectRoot } from '../project-root';

/** Where the reference web client (web/, built by `npm run build`) is served. */
export const WEB_CLIENT_PATH = '/app';

/** The folder Vite builds the client into (web/vite.config.mjs). */
export function webClientDir(): string {
  return join(projectRoot(), 'dist', 'web');
}

/** How the client signs in with the identity provider (`/app/sign-in.json`); null: tokens only. */
export interface WebSignIn {
  readonly issuer: string;
  readonly clientId: string;
  readonly scope: string;
}

// why: the client talks to this origin only (HTTP and graphql-ws) and loads nothing from
// elsewhere; with sign-in through a provider it also fetches the provider's discovery and tokens.
function securityHeaders(signIn: WebSignIn | null): Readonly<Record<string, string>> {
  const provider = signIn ? ` ${new URL(signIn.issuer).origin}` : '';
  return {
    'Content-Security-Policy':
      `default-src 'self'; connect-src 'self'${provider}; img-src 'self' data:; style-src 'self'; ` +
      "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

const HAS_EXTENSION = /\.[A-Za-z0-9]+$/;

/**
 * Serves the built client: files under the build folder as they are (hashed assets cached for a
 * year), and `index.html` for every other path under /app (the client routes itself:
 * `/app/`, `/app/chat?...`). No token is needed for the page; every operation it sends needs one.
 */
export function webClientHandler(
  dir: string,
  options: { serveSourceMaps: boolean; signIn?: WebSignIn | null },
) {
  const root = normalize(dir + sep);
  const headers = securityHeaders(options.signIn ?? null);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (req.path === '/sign-in.json') {
      res.setHeader('Cache-Control', 'no-cache');
      res.json(options.signIn ?? null);
      return;
    }
    const index = join(root, 'index.html');
    if (!existsSync(index)) {
      notFound(res, 'The web client is not built: run `npm run build`');
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(req.path);
    } catch {
      notFound(res, 'Not found');
      return;
    }
    if (!HAS_EXTENSION.test(path)) {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
      return;
    }
    // why: in production the build's source maps stay on disk (they would hand out the client's
    // source); the bundles still name them, so browsers' developer tools ask and get a 404.
    if (!options.serveSourceMaps && path.endsWith('.map')) {
      notFound(res, 'Not found');
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      notFound(res, 'Not found');
      return;
    }
    const hashed = path.startsWith('/assets/');
    res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.sendFile(file);
  };
}

/** Mounts the client at {@link WEB_CLIENT_PATH}, ahead of Nest's routes; source maps outside production only. */
export function mountWebClient(
  app: INestApplication,
  production: boolean,
  signIn: WebSignIn | null = null,
  dir = webClientDir(),
): void {
  app.use(WEB_CLIENT_PATH, webClientHandler(dir, { serveSourceMaps: !production, signIn }));
}

// why: a plain 404 in the JSON shape every other client error has (not an HttpException).
function notFound(res: Response, message: string): void {
  res.status(404).json({ errors: [{ message, extensions: { code: 'NOT_FOUND' } }] });
}
