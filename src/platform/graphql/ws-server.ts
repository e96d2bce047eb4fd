import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { GraphQLError } from 'graphql';
import type { Context as WsContext, Disposable, ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { RawData, WebSocket, WebSocketServer } from 'ws';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Metrics } from '../metrics/metrics';
import { EventBus, Unsubscribe } from '../pubsub/event-bus';
import { SharedCounters } from '../redis/shared-counters';
import { originAllowed } from '../http/origin-policy';
import { AuthFailureLimiter } from '../auth/auth-failures';
import { Authenticator, TOKEN_REVOKED_TOPIC } from '../auth/authenticator';
import type { AuthUser } from '../auth/auth-user';
import { createArmor, errorFormatter, graphqlContext, operationLimits, WsExtra } from './graphql.setup';
import { formatWsErrors, formatWsResult, prepareWsOperation } from './ws-operations';
import { SharedFrames } from './shared-frames';
import { GRAPHQL_PATH, remoteAddress } from './early-token-check';
import { FramedText, guardSends, SLOW_CONSUMER_CLOSE } from './socket-sends';

/**
 * How long a connection counts against its user's cap in Redis unless its instance renews it
 * (every third of it): the connections of an instance that died stop counting after this.
 */
const LEASE_MS = 30_000;

/** Close codes of the contract (the 44xx mirror HTTP statuses, like graphql-ws' own 4400/4408). */
export const WS_CLOSE = {
  unauthorized: 4401,
  /** Too many connections for the user, or too many failed authentications from the address. */
  rateLimited: 4429,
  /** The client read too slowly: more than WS_MAX_BUFFERED_BYTES waited to be sent. */
  slowConsumer: SLOW_CONSUMER_CLOSE,
} as const;

type Extra = WsExtra & { socket: WebSocket };
type Ctx = WsContext<Record<string, unknown> | undefined, Extra>;

/** The `authorization` of a graphql-ws `ping` that renews the connection's token, else null. */
function renewalOf(data: RawData): string | null {
  const text = Array.isArray(data)
    ? Buffer.concat(data).toString()
    : Buffer.from(data as ArrayBuffer).toString();
  // why: only pings are parsed a second time, and cheaply rejected before JSON.parse.
  if (!text.includes('"ping"') || !text.includes('authorization')) return null;
  try {
    const message = JSON.parse(text) as { type?: unknown; payload?: { authorization?: unknown } | null };
    const authorization = message.type === 'ping' ? message.payload?.authorization : undefined;
    return typeof authorization === 'string' ? authorization : null;
  } catch {
    return null;
  }
}

const rateLimited = (message: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'RATE_LIMITED', retryable: true } });

/**
 * The graphql-ws endpoint (`ws://…/graphql`), on the HTTP server's upgrade: frames up to
 * `WS_MAX_PAYLOAD_BYTES` (a larger one closes the socket with 1009), `connection_init` within
 * `WS_CONNECTION_INIT_TIMEOUT_SECONDS` (else 4408), authentication at connect (4401; 4429 once
 * the address failed `AUTH_FAILURES_PER_MINUTE` times), at most `WS_MAX_CONNECTIONS_PER_USER`
 * connections per user (4429; over all instances where REDIS_URL is set, each connection a
 * renewed lease in Redis) and `WS_MAX_SUBSCRIPTIONS_PER_CONNECTION`
 * operations at once on one connection (RATE_LIMITED). Every operation passes the HTTP limits.
 * A connection closes (4401) when its token expires; one opened with an identity provider's JWT
 * not if a `ping` carried a fresh one first (docs/security.md).
 * A revoked token's connections close at once (4401), on every instance: through the event bus
 * for a revocation through the API, on the database's NOTIFY for one on the command line or in SQL.
 * Protocol pings every `WS_KEEPALIVE_SECONDS`; a socket with more than `WS_MAX_BUFFERED_BYTES`
 * waiting to be sent closes with 4413 (socket-sends.ts).
 */
@Injectable()
export class GraphqlWsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(GraphqlWsServer.name);
  private wss: WebSocketServer | null = null;
  private server: Disposable | null = null;
  private unsubscribe: Unsubscribe | null = null;
  private httpServer: Server | null = null;
  /** Open, authenticated sockets by the id of the token they were opened with, and its user. */
  private readonly byToken = new Map<string, { user: AuthUser; sockets: Set<WebSocket> }>();
  /** The re-check of the open connections' tokens in progress, and whether another is due after it. */
  private rechecking: Promise<void> | null = null;
  private recheckDue = false;
  private stopRechecks: (() => void) | null = null;
  /** Open, authenticated connections per user id. */
  private readonly perUser = new Map<number, number>();
  /** Each open connection's lease in Redis (the cap over all instances). */
  private readonly leases = new Map<WebSocket, { key: string; member: string }>();
  /** The accepted connections, whose open operations `/metrics` counts. */
  private readonly accepted = new Set<Ctx>();
  private readonly instance = randomUUID();
  private sequence = 0;
  private renewal: NodeJS.Timeout | null = null;
  private readonly frames = new SharedFrames();
  /** Each socket's bounded send for finished frames (SharedFrames' lanes). */
  private readonly directSends = new WeakMap<WebSocket, (message: FramedText) => void>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly authenticator: Authenticator,
    private readonly failures: AuthFailureLimiter,
    private readonly bus: EventBus,
    private readonly counters: SharedCounters,
    private readonly adapterHost: HttpAdapterHost,
    private readonly schemaHost: GraphQLSchemaHost,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.config.wsMaxPayloadBytes });
    // why: graphql-ws types the extra as an open record; ours is the ws adapter's plus the user.
    this.server = useServer(this.options() as ServerOptions, this.wss, this.config.wsKeepAliveSeconds * 1000);
    this.httpServer = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.httpServer.on('upgrade', this.upgrade);
    this.metrics.watchOpenSubscriptions(() =>
      [...this.accepted].reduce((n, ctx) => n + Object.keys(ctx.subscriptions).length, 0),
    );
    this.unsubscribe = await this.bus.subscribe<{ tokenId?: string }>(TOKEN_REVOKED_TOPIC, (e) =>
      this.closeToken(e.tokenId ?? '', 'Token revoked'),
    );
    this.stopRechecks = this.authenticator.onStoreChanged(this.storeChanged);
    if (this.counters.shared) {
      this.renewal = setInterval(
        () => void this.counters.renew([...this.leases.values()], LEASE_MS),
        LEASE_MS / 3,
      );
      this.renewal.unref();
    }
  }

  // why: before the shutdown hooks, so the connections (and their leases) end while Redis and
  // the event bus are still there.
  async beforeApplicationShutdown(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.httpServer?.off('upgrade', this.upgrade);
    this.stopRechecks?.();
    await this.unsubscribe?.();
    await this.rechecking;
    await Promise.all([...this.leases.values()].map((l) => this.counters.release(l.key, l.member)));
    this.leases.clear();
    await this.server?.dispose();
  }

  private readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const wss = this.wss;
    if (!wss || new URL(req.url ?? '/', 'http://x').pathname !== GRAPHQL_PATH) return;
    wss.handleUpgrade(req, socket, head, (ws) => {
      const send = guardSends(
        ws,
        this.config.wsMaxBufferedBytes,
        (data) => this.frames.expandFrame(data),
        () => this.metrics.slowClientClosed(),
      );
      this.directSends.set(ws, send);
      wss.emit('connection', ws, req);
      // why: a frame over maxPayload (or any other protocol error) makes ws close the socket
      // itself (1009, 1002) and then emit 'error'; graphql-ws would print that to stderr as an
      // internal error, so any client could flood the console. It is the client's doing: debug.
      ws.removeAllListeners('error');
      ws.on('error', (e) => this.logger.debug(`websocket closed on a client error: ${e.message}`));
    });
  };

  private options(): ServerOptions<Record<string, unknown> | undefined, Extra> {
    const limits = operationLimits(this.config, createArmor().protect().validationRules);
    const format = errorFormatter(this.config, this.metrics);
    return {
      schema: this.schemaHost.schema,
      // why: graphql-ws calls a function context with its own ctx first, whose `extra` holds
      // the user the connection authenticated as (graphqlContext reads `input.extra`).
      context: graphqlContext(this.authenticator, this.failures),
      connectionInitWaitTimeout: this.config.wsConnectionInitTimeoutSeconds * 1000,
      onConnect: (ctx) => this.connect(ctx),
      onClose: (ctx) => void this.accepted.delete(ctx),
      onSubscribe: (ctx, id, payload) => {
        // why: graphql-ws has already entered the operation being subscribed in ctx.subscriptions.
        if (Object.keys(ctx.subscriptions).length > this.config.wsMaxSubscriptionsPerConnection) {
          return [
            rateLimited(
              `At most ${this.config.wsMaxSubscriptionsPerConnection} operations at once on one connection`,
            ),
          ];
        }
        // why: armor's rules run in Apollo's HTTP pipeline only; ws operations get the same here.
        const prepared = prepareWsOperation(this.schemaHost.schema, payload, limits);
        const send = this.directSends.get(ctx.extra.socket);
        if (!Array.isArray(prepared) && send) this.frames.openLane(prepared, { id, send });
        return prepared;
      },
      // why: runProgress/runEvents frames are executed and serialised once per event (SharedFrames).
      subscribe: this.frames.subscribe,
      onNext: (_ctx, _id, _payload, _args, result) =>
        formatWsResult(result, format) ?? this.frames.marker(result),
      onError: (_ctx, _id, _payload, errors) => formatWsErrors(errors, format),
    };
  }

  /** Authentication and the caps at `connection_init`; closes the socket itself when refused. */
  private async connect(ctx: Ctx): Promise<boolean> {
    const { socket, request } = ctx.extra;
    if (!originAllowed(request.headers, this.config.corsOrigins)) {
      // why: graphql-ws closes a refused connection with 4403; the log says which origin to list.
      this.logger.warn(
        { origin: request.headers.origin, host: request.headers.host },
        'WebSocket from an origin not in CORS_ORIGINS refused (4403)',
      );
      return false;
    }
    const address = remoteAddress(request);
    const wait = this.failures.blockedFor(address);
    if (wait > 0) {
      socket.close(WS_CLOSE.rateLimited, 'RATE_LIMITED: too many failed authentications');
      return false;
    }
    const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
    const user = await this.authenticator.authenticate(typeof header === 'string' ? header : null);
    if (!user) {
      if (typeof header === 'string' && header.length > 0) await this.failures.failed(address);
      // why: graphql-ws only knows 4403 for a refused connection; the contract says 4401.
      socket.close(WS_CLOSE.unauthorized, 'Unauthorized');
      return false;
    }
    if (!(await this.admit(socket, user))) {
      socket.close(WS_CLOSE.rateLimited, 'RATE_LIMITED: too many connections for this user');
      return false;
    }
    if (socket.readyState !== WebSocket.OPEN) {
      this.releaseLease(socket);
      return false;
    }
    this.track(socket, user);
    this.accepted.add(ctx);
    ctx.extra.user = user;
    this.watchExpiry(ctx, user);
    return true;
  }

  /**
   * A connection closes with 4401 ("Token expired") when its token expires. A personal access
   * token's expiry is fixed. An identity provider's JWT may be renewed before: a graphql-ws `ping`
   * whose payload is `{ "authorization": "Bearer <jwt>" }` (docs/security.md); a fresh token must
   * sign in the same user, and one that does not, or is not valid, closes the connection at once
   * (4401).
   */
  private watchExpiry(ctx: Ctx, user: AuthUser): void {
    const { socket } = ctx.extra;
    if (user.tokenExpiresAt) this.closeWhenExpired(socket, user.tokenExpiresAt);
    if (!user.expiresAt) return;
    const arm = this.closeWhenExpired(socket, user.expiresAt);
    socket.on('message', (data) => void this.renew(ctx, data, arm));
  }

  /** Closes the socket (4401, "Token expired") at `expiresAt`; returns the way to move that time. */
  private closeWhenExpired(socket: WebSocket, expiresAt: Date): (next: Date) => void {
    let timer: NodeJS.Timeout | null = null;
    const arm = (at: Date): void => {
      if (timer) clearTimeout(timer);
      // why: setTimeout overflows past 2^31-1 ms (about 24 days); a later expiry re-arms then.
      const wait = Math.min(Math.max(0, at.getTime() - Date.now()), 2 ** 31 - 1);
      timer = setTimeout(() => {
        if (at.getTime() <= Date.now()) socket.close(WS_CLOSE.unauthorized, 'Token expired');
        else arm(at);
      }, wait);
    };
    arm(expiresAt);
    socket.once('close', () => timer && clearTimeout(timer));
    return arm;
  }

  /** Handles a token renewal (a `ping` with an authorization); graphql-ws still answers the pong. */
  private async renew(ctx: Ctx, data: RawData, arm: (expiresAt: Date) => void): Promise<void> {
    const authorization = renewalOf(data);
    if (authorization === null) return;
    const { socket, request } = ctx.extra;
    const current = ctx.extra.user;
    const user = await this.authenticator.authenticate(authorization).catch(() => null);
    if (!user?.expiresAt || !current || user.id !== current.id) {
      if (!user) await this.failures.failed(remoteAddress(request));
      socket.close(WS_CLOSE.unauthorized, 'Unauthorized');
      return;
    }
    ctx.extra.user = user;
    arm(user.expiresAt);
  }

  /**
   * Whether the user may hold one more connection: below the cap here and, where Redis counts,
   * over all instances (a lease for this socket). Without an answer from Redis this instance
   * decides alone.
   */
  private async admit(socket: WebSocket, user: AuthUser): Promise<boolean> {
    const max = this.config.wsMaxConnectionsPerUser;
    if ((this.perUser.get(user.id) ?? 0) >= max) return false;
    const key = `ws-connections:user:${user.id}`;
    const member = `${this.instance}:${++this.sequence}`;
    const shared = await this.counters.admit(key, member, max, LEASE_MS);
    if (shared === false) return false;
    if (shared) this.leases.set(socket, { key, member });
    // why: other connections of the user may have been admitted here while Redis answered.
    if ((this.perUser.get(user.id) ?? 0) >= max) {
      this.releaseLease(socket);
      return false;
    }
    return true;
  }

  private releaseLease(socket: WebSocket): void {
    const lease = this.leases.get(socket);
    if (!lease) return;
    this.leases.delete(socket);
    void this.counters.release(lease.key, lease.member);
  }

  private track(socket: WebSocket, user: AuthUser): void {
    this.perUser.set(user.id, (this.perUser.get(user.id) ?? 0) + 1);
    const entry = this.byToken.get(user.tokenId) ?? { user, sockets: new Set<WebSocket>() };
    entry.sockets.add(socket);
    this.byToken.set(user.tokenId, entry);
    socket.once('close', () => {
      this.releaseLease(socket);
      const left = (this.perUser.get(user.id) ?? 1) - 1;
      if (left > 0) this.perUser.set(user.id, left);
      else this.perUser.delete(user.id);
      entry.sockets.delete(socket);
      if (entry.sockets.size === 0 && this.byToken.get(user.tokenId) === entry)
        this.byToken.delete(user.tokenId);
    });
  }

  private closeToken(tokenId: string, reason: string): void {
    for (const socket of this.byToken.get(tokenId)?.sockets ?? [])
      socket.close(WS_CLOSE.unauthorized, reason);
  }

  /**
   * The database says what some token grants may have changed: a revocation on the command line
   * or in SQL closes its connections at once too, as one through the API does (TOKEN_REVOKED_TOPIC).
   * One re-check at a time; changes heard meanwhile get one more after it.
   */
  private readonly storeChanged = (): void => {
    if (this.rechecking) {
      this.recheckDue = true;
      return;
    }
    this.rechecking = this.recheckTokens()
      .catch((e: Error) => this.logger.warn(`re-checking the open connections' tokens failed: ${e.message}`))
      .finally(() => {
        this.rechecking = null;
        if (!this.recheckDue) return;
        this.recheckDue = false;
        this.storeChanged();
      });
  };

  /**
   * Closes (4401) the connections whose personal access token is no longer valid: one statement
   * for all of them. why not a JWT's: nothing in the database revokes one, its expiry has its own
   * timer (watchExpiry), and a connection renews it under the id it opened with.
   */
  private async recheckTokens(): Promise<void> {
    const open = [...this.byToken].filter(([, entry]) => !entry.user.expiresAt);
    // why: issued in one tick, so the authenticator reads every token in one batch.
    const fresh = await Promise.all(open.map(([, entry]) => this.authenticator.refresh(entry.user)));
    open.forEach(([tokenId], i) => fresh[i] === null && this.closeToken(tokenId, 'Token no longer valid'));
  }
}
