import { ApolloArmor } from '@escape.tech/graphql-armor';
import { ApolloDriverConfig } from '@nestjs/apollo';
import { Logger } from '@nestjs/common';
import { ExecutionArgs, GraphQLError } from 'graphql';
import type { GraphQLWsSubscriptionsConfig } from '@nestjs/graphql';
import type { Context as WsContext, ServerOptions, SubscribePayload } from 'graphql-ws';
import type { Request } from 'express';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppConfig } from '../../config/app-config';
import { Authenticator } from '../auth/authenticator';
import { AuthUser } from '../auth/auth-user';
import { GqlContext } from '../auth/access.guard';
import { RequestContext } from '../auth/request-context';
import { refuseNulBytes, schemaHolder, subscriptionsOverWsOnly } from './apollo-plugins';
import { ErrorCodeEnum } from './error-code.enum';
import { queryCostLimit } from './query-cost';
import { formatGraphQLError } from './format-error';
import {
  FormatOne,
  formatWsErrors,
  formatWsResult,
  OperationLimits,
  prepareWsOperation,
} from './ws-operations';

/** The project root (where package.json is), from src/ under ts-jest or dist/src/ when built. */
function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

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

interface WsExtra {
  user?: AuthUser;
  request: Request;
}

const unauthenticated = (): GraphQLError =>
  new GraphQLError('A valid bearer token is required', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
  });

type WsOptions = Partial<ServerOptions<Record<string, unknown> | undefined, unknown>> & { path: string };

/** graphql-ws: authentication at connect, the HTTP limits for every operation, formatted errors. */
function wsOptions(
  config: AppConfig,
  authenticator: Authenticator,
  prepare: (payload: SubscribePayload) => ExecutionArgs | GraphQLError[],
  format: FormatOne,
): GraphQLWsSubscriptionsConfig {
  const options: WsOptions = {
    path: '/graphql',
    onConnect: async (raw) => {
      const ws = raw as WsContext<Record<string, unknown> | undefined, WsExtra>;
      const origin = ws.extra.request.headers.origin;
      if (config.corsOrigins.length > 0 && origin && !config.corsOrigins.includes(origin)) {
        return false;
      }
      const header = ws.connectionParams?.authorization ?? ws.connectionParams?.Authorization;
      const user = await authenticator.authenticate(typeof header === 'string' ? header : null);
      if (!user) {
        // why: graphql-ws only knows 4403 for a refused connection; the contract says 4401.
        const socket = (ws.extra as unknown as { socket: { close(code: number, reason: string): void } })
          .socket;
        socket.close(4401, 'Unauthorized');
        return false;
      }
      ws.extra.user = user;
      return true;
    },
    // why: armor's rules run in Apollo's HTTP pipeline only; ws operations get the same here.
    onSubscribe: (_ctx, _id, payload) => prepare(payload),
    onNext: (_ctx, _id, _payload, _args, result) => formatWsResult(result, format),
    // why: not in Nest's type, but Nest hands every graphql-ws option through to useServer.
    onError: (_ctx, _id, _payload, errors) => formatWsErrors(errors, format),
  };
  return options;
}

/** Apollo + graphql-ws configuration: auth in the context, limits, error formatting. */
export function graphqlOptions(config: AppConfig, authenticator: Authenticator): ApolloDriverConfig {
  const logger = new Logger('GraphQL');
  const armor = createArmor().protect();
  const limits: OperationLimits = {
    maxTokens: LIMITS.maxTokens,
    rules: armor.validationRules,
    maxCost: LIMITS.maxCost,
  };
  const schema = schemaHolder();
  const production = config.nodeEnv === 'production';
  const formatError = (formatted: Parameters<typeof formatGraphQLError>[0], error: unknown) =>
    formatGraphQLError(formatted, error, {
      production,
      onFault: (e, id) => logger.error({ correlationId: id, err: e }, 'unhandled fault'),
    });
  return {
    path: '/graphql',
    // why: only `npm run schema:generate` and development write schema.gql; tests build in memory.
    autoSchemaFile: config.nodeEnv === 'development' ? SCHEMA_FILE : true,
    sortSchema: true,
    // why: ErrorCode is in the contract before any field uses it (HandBack.code will).
    buildSchemaOptions: { dateScalarMode: 'isoDate', orphanedTypes: [ErrorCodeEnum] },
    introspection: config.introspection,
    playground: false,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    plugins: [
      ...armor.plugins,
      schema.plugin,
      subscriptionsOverWsOnly(),
      refuseNulBytes(),
      queryCostLimit(LIMITS.maxCost),
    ],
    validationRules: [...armor.validationRules],
    parseOptions: { maxTokens: LIMITS.maxTokens },
    formatError,
    context: async (input: { req?: Request; extra?: WsExtra }): Promise<GqlContext> => {
      if (input.extra) {
        // why: a connection lives longer than its token may: every operation over it is
        // authorised again (a revoked token or a changed grant counts from the next one).
        // Without a user the guard answers UNAUTHENTICATED as a coded GraphQL error.
        const connected = input.extra.user;
        const fresh = connected ? await authenticator.reload(connected) : null;
        return { ctx: new RequestContext(fresh) };
      }
      const user = await authenticator.authenticate(input.req?.headers.authorization);
      if (!user) throw unauthenticated();
      const requestId = (input.req as { id?: unknown } | undefined)?.id;
      return { ctx: new RequestContext(user, typeof requestId === 'string' ? requestId : undefined) };
    },
    subscriptions: {
      'graphql-ws': wsOptions(
        config,
        authenticator,
        (payload) => prepareWsOperation(schema.get(), payload, limits),
        formatError,
      ),
    },
  };
}
