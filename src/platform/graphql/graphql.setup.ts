import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { ApolloDriverConfig } from '@nestjs/apollo';
import { Logger } from '@nestjs/common';
import { GraphQLError, NoSchemaIntrospectionCustomRule, ValidationRule } from 'graphql';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AppConfig } from '../../config/app-config';
import { projectRoot } from '../project-root';
import { AuthFailureLimiter } from '../auth/auth-failures';
import { Authenticator } from '../auth/authenticator';
import { AuthUser } from '../auth/auth-user';
import { GqlContext } from '../auth/access.guard';
import { RequestContext } from '../auth/request-context';
import { currentRequestId } from '../logging/logger-params';
import { GRAPHQL_PATH, remoteAddress, tokenCheckOf } from './early-token-check';
import type { Metrics } from '../metrics/metrics';
import { graphqlOverHttpStatus, refuseNulBytes, subscriptionsOverWsOnly } from './apollo-plugins';
import { ErrorCodeEnum } from './error-code.enum';
import type { OperationPrefetch } from './operation-prefetch';
import { queryCostLimit } from './query-cost';
import { StrictDateTime } from './scalars';
import { formatGraphQLError } from './format-error';
import type { FormatOne, OperationLimits } from './ws-operations';

export const SCHEMA_FILE = join(projectRoot(), 'schema.gql');

/**
 * The limits of docs/security.md, shared by HTTP (Apollo) and graphql-ws. `maxCost` bounds both
 * graphql-armor's cost rule (at validation) and the page-aware cost worked out once the
 * variables are known (query-cost.ts).
 */
export const LIMITS = { maxDepth: 10, maxAliases: 15, maxDirectives: 50, maxTokens: 2000, maxCost: 5000 };

/** graphql-armor with the limits of docs/security.md. */
export function createArmor(): ApolloArmor {
  return new ApolloArmor({
    maxDepth: { n: LIMITS.maxDepth },
    maxAliases: { n: LIMITS.maxAliases },
    maxDirectives: { n: LIMITS.maxDirectives },
    // why: armor's token counter throws inside a plugin hook, which turns every syntax error
    // into an HTTP 500; Apollo's own parser enforces the same limit (parseOptions) with a 400.
    maxTokens: { enabled: false },
    costLimit: { maxCost: LIMITS.maxCost },
    // why: suggestions are stripped in formatGraphQLError (production only), for both transports.
    blockFieldSuggestion: { enabled: false },
  });
}

/** What graphql-ws keeps per connection: the upgrade request, the socket, the user at connect. */
export interface WsExtra {
  user?: AuthUser;
  request: IncomingMessage;
}

/** The HTTP 401 for a missing, unknown, revoked or expired token (RFC 6750's challenge with it). */
const unauthenticated = (): GraphQLError =>
  new GraphQLError('A valid bearer token is required', {
    extensions: {
      code: 'UNAUTHENTICATED',
      http: { status: 401, headers: new Map([['www-authenticate', 'Bearer']]) },
    },
  });

/** The HTTP 429 for an address past `AUTH_FAILURES_PER_MINUTE`. */
const tooManyFailures = (retryAfterSeconds: number): GraphQLError =>
  new GraphQLError('Too many failed authentications from this address; try again later', {
    extensions: {
      code: 'RATE_LIMITED',
      http: { status: 429, headers: new Map([['retry-after', String(retryAfterSeconds)]]) },
    },
  });

/** The limits every operation passes, over HTTP (Apollo) and graphql-ws (ws-server.ts). */
export function operationLimits(config: AppConfig, armorRules: readonly ValidationRule[]): OperationLimits {
  return {
    maxTokens: LIMITS.maxTokens,
    // why: Apollo refuses introspection itself when it is off; graphql-ws needs the rule.
    rules: config.introspection ? armorRules : [...armorRules, NoSchemaIntrospectionCustomRule],
    maxCost: LIMITS.maxCost,
  };
}

/** The one error formatter of both transports; every code answered is counted here. */
export function errorFormatter(config: AppConfig, metrics: Metrics): FormatOne {
  const logger = new Logger('GraphQL');
  const production = config.nodeEnv === 'production';
  return (formatted, error) => {
    const answered = formatGraphQLError(formatted, error, {
      production,
      // why: over HTTP the id is the request's (its response header and its log line carry it
      // too); a graphql-ws operation has no request of its own and gets a fresh one.
      correlationId: () => currentRequestId() ?? randomUUID(),
      onFault: (e, id) => logger.error({ correlationId: id, err: e }, 'unhandled fault'),
    });
    const code = answered.extensions?.code;
    metrics.errorAnswered(typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR');
    return answered;
  };
}

/**
 * The GraphQL context of both transports. Over HTTP the bearer token's check (started as the
 * request arrived, early-token-check.ts) is awaited here: 401 with `WWW-Authenticate: Bearer`
 * when it is not valid, 429 once the address failed too often.
 */
export function graphqlContext(authenticator: Authenticator, failures: AuthFailureLimiter) {
  return async (input: { req?: Request; extra?: WsExtra }): Promise<GqlContext> => {
    if (input.extra) {
      // why: a connection lives longer than its token may: every operation over it is
      // authorised again (a revoked token or a changed grant counts from the next one).
      // Without a user the guard answers UNAUTHENTICATED as a coded GraphQL error.
      const connected = input.extra.user;
      const fresh = connected ? await authenticator.reload(connected) : null;
      return { ctx: new RequestContext(fresh) };
    }
    const header = input.req?.headers.authorization;
    const address = remoteAddress(input.req);
    if (header) {
      const wait = failures.blockedFor(address);
      if (wait > 0) throw tooManyFailures(wait);
    }
    const user = header ? await tokenCheckOf(input.req, header, authenticator) : null;
    if (!user) {
      if (header) await failures.failed(address);
      throw unauthenticated();
    }
    const requestId = (input.req as { id?: unknown } | undefined)?.id;
    return { ctx: new RequestContext(user, typeof requestId === 'string' ? requestId : undefined) };
  };
}

/** Apollo + graphql-ws configuration: auth in the context, limits, error formatting. */
export function graphqlOptions(
  config: AppConfig,
  authenticator: Authenticator,
  failures: AuthFailureLimiter,
  metrics: Metrics,
  prefetch: OperationPrefetch,
): ApolloDriverConfig {
  const armor = createArmor().protect();
  const formatError = errorFormatter(config, metrics);
  return {
    path: GRAPHQL_PATH,
    // why: only `npm run schema:generate` and development write schema.gql; tests build in memory.
    autoSchemaFile: config.nodeEnv === 'development' ? SCHEMA_FILE : true,
    sortSchema: true,
    // why: ErrorCode is in the contract before any field uses it (HandBack.code will).
    buildSchemaOptions: {
      dateScalarMode: 'isoDate',
      scalarsMap: [{ type: Date, scalar: StrictDateTime }],
      orphanedTypes: [ErrorCodeEnum],
    },
    introspection: config.introspection,
    playground: false,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    plugins: [
      // why: no field has a cache hint; the plugin wrapped every resolver of every operation to
      // work out `no-store`, which graphqlOverHttpStatus sets at once.
      ApolloServerPluginCacheControlDisabled(),
      ...armor.plugins,
      subscriptionsOverWsOnly(),
      refuseNulBytes(),
      queryCostLimit(LIMITS.maxCost),
      graphqlOverHttpStatus(),
      // why: last, so an operation a limit refuses at this stage starts nothing.
      prefetch.plugin(),
    ],
    validationRules: [...armor.validationRules],
    parseOptions: { maxTokens: LIMITS.maxTokens },
    formatError,
    context: graphqlContext(authenticator, failures),
    // why: graphql-ws is served by GraphqlWsServer (ws-server.ts), not Nest's: Nest's WebSocket
    // server takes no options (100 MiB frames before authentication) and keeps no handle on
    // its connections.
  };
}
