import { dirname, join } from 'node:path';

/** Where the page loads its scripts and styles from: this server, never a CDN. */
export const GRAPHIQL_ASSET_PATH = '/graphiql/assets';

interface PackagedAsset {
  readonly pkg: string;
  readonly file: string;
  readonly type: string;
}

const JS = 'application/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The UMD builds the page needs, served from the installed npm packages (works offline). */
export const PACKAGED_ASSETS: Readonly<Record<string, PackagedAsset>> = {
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: JS },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: JS },
  'graphql-ws.min.js': { pkg: 'graphql-ws', file: 'umd/graphql-ws.min.js', type: JS },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: JS },
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: CSS },
};

/** The absolute path of a packaged asset (each package exports its package.json). */
export function packagedAssetPath(asset: PackagedAsset): string {
  return join(dirname(require.resolve(`${asset.pkg}/package.json`)), asset.file);
}

const TOKEN_KEY = 'countersign.graphiql.token';

const DEFAULT_QUERY = `# Countersign GraphiQL
#
# Paste a personal access token (cs_...) or a JWT of the identity provider (eyJ...) in the
# field above and press "Use token", or put {"Authorization": "Bearer cs_..."} in the Headers tab below. Queries and mutations go over
# HTTP, subscriptions over graphql-ws, both with that token (the Headers tab's wins).
# The CLI prints one: npm run cli -- token create --user <username>

query Me {
  viewer {
    user { username displayName isAdmin }
    grants
  }
}
`;

/** The page's own script: token field, HTTP + graphql-ws fetcher, GraphiQL rendering. */
export const GRAPHIQL_INIT_SCRIPT = `(function () {
  'use strict';
  var TOKEN_KEY = ${JSON.stringify(TOKEN_KEY)};
  var DEFAULT_QUERY = ${JSON.stringify(DEFAULT_QUERY)};
  var httpUrl = new URL('/graphql', window.location.href).toString();
  var wsUrl = httpUrl.replace(/^http/, 'ws');
  var input = document.getElementById('cs-token');
  var status = document.getElementById('cs-status');
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  var generation = 0;

  // why: session storage, like /app: the token stays in this tab and goes when it closes,
  // instead of lingering on disk for any later script of this origin.
  function readToken() {
    try { return window.sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; }
  }
  function writeToken(value) {
    try {
      if (value) window.sessionStorage.setItem(TOKEN_KEY, value);
      else window.sessionStorage.removeItem(TOKEN_KEY);
    } catch (e) { /* storage unavailable: the token lives until reload */ }
  }
  function bearer(token) {
    var t = (token || '').trim();
    if (!t) return null;
    return /^bearer\\s/i.test(t) ? t : 'Bearer ' + t;
  }

  // why: the close codes of docs/streaming.md as the error codes a person recognises.
  var CLOSE_CODES = { 4401: 'UNAUTHENTICATED', 4403: 'FORBIDDEN', 4429: 'RATE_LIMITED' };

  /** The Authorization header of GraphiQL's Headers tab (any case), else null. */
  function headerAuthorization(headers) {
    if (!headers || typeof headers !== 'object') return null;
    for (var name in headers) {
      if (Object.prototype.hasOwnProperty.call(headers, name) && name.toLowerCase() === 'authorization') {
        return bearer(String(headers[name]));
      }
    }
    return null;
  }

  /** Whether the operation to run is a subscription (the named one, else the first). */
  function isSubscription(query, operationName) {
    var text = String(query || '').replace(/"(?:[^"\\\\\\n]|\\\\.)*"|#[^\\n]*/g, ' ');
    var ops = /(?:^|[\\s}])(?:(query|mutation|subscription)\\b\\s*([_A-Za-z][_0-9A-Za-z]*)?|\\{)/g;
    var match;
    while ((match = ops.exec(text))) {
      var kind = match[1] || 'query';
      if (!operationName || match[2] === operationName) return kind === 'subscription';
    }
    return false;
  }

  /** What a refused or lost subscription shows: a GraphQL error with a code, never a stack. */
  function asResult(error) {
    if (Array.isArray(error)) return { errors: error };
    if (error && typeof error.code === 'number') {
      return {
        errors: [{
          message: 'The WebSocket was closed (' + error.code + (error.reason ? ': ' + error.reason : '') + ')',
          extensions: { code: CLOSE_CODES[error.code] || 'NETWORK', closeCode: error.code },
        }],
      };
    }
    return { errors: [{ message: error && error.message ? String(error.message) : 'The subscription failed' }] };
  }

  // One graphql-ws connection per Authorization value: the token field's, or the one a
  // Headers tab names for an operation (a connection authenticates once, at connection_init).
  var wsClients = {};
  function wsClientFor(authorization) {
    var key = authorization || '';
    if (!wsClients[key]) {
      wsClients[key] = graphqlWs.createClient({
        url: wsUrl,
        lazy: true,
        retryAttempts: 0,
        connectionParams: authorization ? { authorization: authorization } : {},
      });
    }
    return wsClients[key];
  }
  function disposeWsClients() {
    for (var key in wsClients) wsClients[key].dispose();
    wsClients = {};
  }

  /**
   * The fetcher: queries and mutations over HTTP with GraphiQL's own fetcher (the Headers tab
   * merged over the token field's header); subscriptions over graphql-ws, authenticated with
   * the Headers tab's Authorization where it has one, else the token field's.
   */
  function createCountersignFetcher(authorization) {
    var http = GraphiQL.createFetcher({
      url: httpUrl,
      enableIncrementalDelivery: false,
      headers: authorization ? { authorization: authorization } : {},
    });
    return function (params, opts) {
      if (!isSubscription(params.query, params.operationName)) return http(params, opts);
      var client = wsClientFor(headerAuthorization(opts && opts.headers) || authorization);
      return {
        subscribe: function (observer) {
          var sink = typeof observer === 'function' ? { next: observer } : observer;
          var dispose = client.subscribe(
            { query: params.query, variables: params.variables, operationName: params.operationName },
            {
              next: function (value) { if (sink.next) sink.next(value); },
              error: function (error) {
                if (sink.next) sink.next(asResult(error));
                if (sink.complete) sink.complete();
              },
              complete: function () { if (sink.complete) sink.complete(); },
            },
          );
          return { unsubscribe: dispose };
        },
      };
    };
  }
  window.countersignGraphiql = {
    createFetcher: createCountersignFetcher,
    isSubscription: isSubscription,
    headerAuthorization: headerAuthorization,
  };

  function render(token) {
    var authorization = bearer(token);
    disposeWsClients();
    var fetcher = createCountersignFetcher(authorization);
    generation += 1;
    root.render(
      React.createElement(GraphiQL, {
        key: 'graphiql-' + generation,
        fetcher: fetcher,
        defaultQuery: DEFAULT_QUERY,
        shouldPersistHeaders: false,
      }),
    );
    status.textContent = authorization
      ? 'Using the token for this tab (HTTP and WebSocket).'
      : 'No token: paste a personal access token (cs_...) or a JWT (eyJ...), or set Authorization in the Headers tab.';
  }

  document.getElementById('cs-form').addEventListener('submit', function (event) {
    event.preventDefault();
    writeToken(input.value.trim());
    input.value = '';
    render(readToken());
  });
  document.getElementById('cs-forget').addEventListener('click', function () {
    writeToken('');
    input.value = '';
    render('');
  });
  render(readToken());
})();
`;

/**
 * The headers of the page and its assets: /app's (web-client.ts), except that GraphiQL and the
 * page's own <style> set inline styles. Scripts come from this origin only; nothing may frame it.
 */
export const GRAPHIQL_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
    "font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The GraphiQL page: only same-origin assets (no CDN), so it works without internet. */
export function graphiqlHtml(): string {
  const script = (name: string): string => `    <script src="${GRAPHIQL_ASSET_PATH}/${name}"></script>`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Countersign GraphiQL</title>
    <link rel="stylesheet" href="${GRAPHIQL_ASSET_PATH}/graphiql.min.css" />
    <style>
      html, body { height: 100%; margin: 0; }
      body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
      #cs-form { display: flex; gap: 8px; align-items: center; padding: 6px 12px; font-size: 13px;
        border-bottom: 1px solid #ddd; background: #f7f7f9; }
      #cs-form input { width: 28em; font-family: monospace; }
      #cs-status { color: #555; }
      #graphiql { flex: 1; min-height: 0; }
    </style>
  </head>
  <body>
    <form id="cs-form" autocomplete="off">
      <strong>Countersign</strong>
      <label>Bearer token <input id="cs-token" type="password" placeholder="cs_... or eyJ..." /></label>
      <button type="submit">Use token</button>
      <button type="button" id="cs-forget">Forget token</button>
      <span id="cs-status"></span>
    </form>
    <div id="graphiql">Loading GraphiQL...</div>
${script('react.production.min.js')}
${script('react-dom.production.min.js')}
${script('graphql-ws.min.js')}
${script('graphiql.min.js')}
${script('countersign-graphiql.js')}
  </body>
</html>
`;
}
