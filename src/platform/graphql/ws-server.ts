import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { GraphQLError } from 'graphql';
import type { Context as WsContext, Disposable, ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EventBus, Unsubscribe } from '../pubsub/event-bus';
import { AuthFailureLimiter } from '../auth/auth-failures';
import { Authenticator, TOKEN_REVOKED_TOPIC } from '../auth/authenticator';
import type { AuthUser } from '../auth/auth-user';
import {
  createArmor,
  errorFormatter,
  graphqlContext,
  operationLimits,
  remoteAddress,
  WsExtra,
} from './graphql.setup';
import { formatWsErrors, formatWsResult, prepareWsOperation } from './ws-operations';

const PATH = '/graphql';

/** Close codes of the contract (the 44xx mirror HTTP statuses, like graphql-ws' own 4400/4408). */
export const WS_CLOSE = {
  unauthorized: 4401,
  /** Too many connections for the user, or too many failed authentications from the address. */
  rateLimited: 4429,
} as const;

type Extra = WsExtra & { socket: WebSocket };
type Ctx = WsContext<Record<string, unknown> | undefined, Extra>;

const rateLimited = (message: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'RATE_LIMITED', retryable: true } });

/**
 * The graphql-ws endpoint (`ws://…/graphql`), on the HTTP server's upgrade: frames up to
 * `WS_MAX_PAYLOAD_BYTES` (a larger one closes the socket with 1009), `connection_init` within
 * `WS_CONNECTION_INIT_TIMEOUT_SECONDS` (else 4408), authentication at connect (4401; 4429 once
 * the address failed `AUTH_FAILURES_PER_MINUTE` times), at most `WS_MAX_CONNECTIONS_PER_USER`
 * connections per user on this instance (4429) and `WS_MAX_SUBSCRIPTIONS_PER_CONNECTION`
 * operations at once on one connection (RATE_LIMITED). Every operation passes the HTTP limits.
 * A revoked token's connections close at once (4401), on every instance (the event bus).
 */
@Injectable()
export class GraphqlWsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(GraphqlWsServer.name);
  private wss: WebSocketServer | null = null;
  private server: Disposable | null = null;
  private unsubscribe: Unsubscribe | null = null;
  private httpServer: Server | null = null;
  /** Open, authenticated sockets by the id of the token they were opened with. */
  private readonly byToken = new Map<string, Set<WebSocket>>();
  /** Open, authenticated connections per user id. */
  private readonly perUser = new Map<number, number>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly authenticator: Authenticator,
    private readonly failures: AuthFailureLimiter,
    private readonly bus: EventBus,
    private readonly adapterHost: HttpAdapterHost,
    private readonly schemaHost: GraphQLSchemaHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.config.wsMaxPayloadBytes });
    // why: graphql-ws types the extra as an open record; ours is the ws adapter's plus the user.
    this.server = useServer(this.options() as ServerOptions, this.wss);
    this.httpServer = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.httpServer.on('upgrade', this.upgrade);
    this.unsubscribe = await this.bus.subscribe<{ tokenId?: string }>(TOKEN_REVOKED_TOPIC, (e) => {
      for (const socket of this.byToken.get(e.tokenId ?? '') ?? []) {
        socket.close(WS_CLOSE.unauthorized, 'Token revoked');
      }
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.httpServer?.off('upgrade', this.upgrade);
    await this.unsubscribe?.();
    await this.server?.dispose();
  }

  private readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const wss = this.wss;
    if (!wss || new URL(req.url ?? '/', 'http://x').pathname !== PATH) return;
    wss.handleUpgrade(req, socket, head, (ws) => {
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
    const format = errorFormatter(this.config);
    return {
      schema: this.schemaHost.schema,
      // why: graphql-ws calls a function context with its own ctx first, whose `extra` holds
      // the user the connection authenticated as (graphqlContext reads `input.extra`).
      context: graphqlContext(this.authenticator, this.failures),
      connectionInitWaitTimeout: this.config.wsConnectionInitTimeoutSeconds * 1000,
      onConnect: (ctx) => this.connect(ctx),
      onSubscribe: (ctx, _id, payload) => {
        // why: graphql-ws has already entered the operation being subscribed in ctx.subscriptions.
        if (Object.keys(ctx.subscriptions).length > this.config.wsMaxSubscriptionsPerConnection) {
          return [
            rateLimited(
              `At most ${this.config.wsMaxSubscriptionsPerConnection} operations at once on one connection`,
            ),
          ];
        }
        // why: armor's rules run in Apollo's HTTP pipeline only; ws operations get the same here.
        return prepareWsOperation(this.schemaHost.schema, payload, limits);
      },
      onNext: (_ctx, _id, _payload, _args, result) => formatWsResult(result, format),
      onError: (_ctx, _id, _payload, errors) => formatWsErrors(errors, format),
    };
  }

  /** Authentication and the caps at `connection_init`; closes the socket itself when refused. */
  private async connect(ctx: Ctx): Promise<boolean> {
    const { socket, request } = ctx.extra;
    const origin = request.headers.origin;
    if (this.config.corsOrigins.length > 0 && origin && !this.config.corsOrigins.includes(origin)) {
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
    if ((this.perUser.get(user.id) ?? 0) >= this.config.wsMaxConnectionsPerUser) {
      socket.close(WS_CLOSE.rateLimited, 'RATE_LIMITED: too many connections for this user');
      return false;
    }
    if (socket.readyState !== WebSocket.OPEN) return false;
    this.track(socket, user);
    ctx.extra.user = user;
    return true;
  }

  private track(socket: WebSocket, user: AuthUser): void {
    this.perUser.set(user.id, (this.perUser.get(user.id) ?? 0) + 1);
    const sockets = this.byToken.get(user.tokenId) ?? new Set<WebSocket>();
    sockets.add(socket);
    this.byToken.set(user.tokenId, sockets);
    socket.once('close', () => {
      const left = (this.perUser.get(user.id) ?? 1) - 1;
      if (left > 0) this.perUser.set(user.id, left);
      else this.perUser.delete(user.id);
      sockets.delete(socket);
      if (sockets.size === 0 && this.byToken.get(user.tokenId) === sockets) this.byToken.delete(user.tokenId);
    });
  }
}
