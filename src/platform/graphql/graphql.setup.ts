import { ApolloArmor } from '@escape.tech/graphql-armor';
import { ApolloDriverConfig } from '@nestjs/apollo';
import { Logger } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import type { Context as WsContext } from 'graphql-ws';
import type { Request } from 'express';
import { join } from 'node:path';
import { AppConfig } from '../../config/app-config';
import { Authenticator } from '../auth/authenticator';
import { AuthUser } from '../auth/auth-user';
import { GqlContext } from '../auth/access.guard';
import { RequestContext } from '../auth/request-context';
import { formatGraphQLError } from './format-error';

export const SCHEMA_FILE = join(__dirname, '..', '..', '..', '..', 'schema.gql');

/** The limits of design/50-security.md, shared by HTTP (Apollo plugins) and graphql-ws. */
export function createArmor(): ApolloArmor {
  return new ApolloArmor({
    maxDepth: { n: 10 },
    maxAliases: { n: 15 },
    maxDirectives: { n: 50 },
    maxTokens: { n: 2000 },
    costLimit: { maxCost: 5000 },
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

/** Apollo + graphql-ws configuration: auth in the context, limits, error formatting. */
export function graphqlOptions(config: AppConfig, authenticator: Authenticator): ApolloDriverConfig {
  const logger = new Logger('GraphQL');
  const armor = createArmor().protect();
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
    buildSchemaOptions: { dateScalarMode: 'isoDate' },
    introspection: config.introspection,
    playground: false,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    plugins: [...armor.plugins],
    validationRules: [...armor.validationRules],
    formatError,
    context: async (input: { req?: Request; extra?: WsExtra }): Promise<GqlContext> => {
      if (input.extra) {
        return { ctx: new RequestContext(input.extra.user ?? null) };
      }
      const user = await authenticator.authenticate(input.req?.headers.authorization);
      if (!user) throw unauthenticated();
      return { ctx: new RequestContext(user) };
    },
    subscriptions: {
      'graphql-ws': {
        path: '/graphql',
        onConnect: async (raw: WsContext<Record<string, unknown> | undefined, unknown>) => {
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
      },
    },
  };
}
