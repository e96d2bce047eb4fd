import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a request's `Origin` may use the API (HTTP CORS and the WebSocket handshake):
 * always when there is no `Origin` (not a browser), when it is the server's own origin (its
 * host is the request's `Host`: /app and /graphiql are served from here), and when it is in
 * `CORS_ORIGINS`; any origin at all while `CORS_ORIGINS` is empty.
 */
export function originAllowed(headers: IncomingHttpHeaders, allowed: readonly string[]): boolean {
  const origin = headers.origin;
  if (!origin || allowed.length === 0) return true;
  return allowed.includes(origin) || isOwnOrigin(origin, headers.host);
}

/**
 * why: a browser sends `Origin: http://host:port` for a page of this server, and `Host` is
 * the address it asked for, so the two name the same server whatever name or port it is
 * reached by (a proxy that rewrites `Host` must pass it through, as for any virtual host).
 */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host.toLowerCase();
}
