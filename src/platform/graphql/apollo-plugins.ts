import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';
import { nulByteError, nulByteIn } from './nul-bytes';

/**
 * Refuses a subscription sent over HTTP (BAD_USER_INPUT, 400): Apollo would otherwise run the
 * subscription's resolver once without an event and fail inside it. Subscriptions are served
 * over graphql-ws on the same path.
 */
export function subscriptionsOverWsOnly(): ApolloServerPlugin {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation({ operation }) {
          if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
            throw new GraphQLError('Subscriptions are served over graphql-ws (same path, /graphql)', {
              extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
            });
          }
          return Promise.resolve();
        },
      }),
  };
}

/**
 * Refuses an operation whose input carries a NUL character, in a string literal or anywhere in
 * its variables (BAD_USER_INPUT, 400), before anything runs: PostgreSQL cannot store one.
 */
export function refuseNulBytes(): ApolloServerPlugin {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation({ document, request }) {
          const where = nulByteIn(document, request.variables);
          if (where) throw nulByteError(where);
          return Promise.resolve();
        },
      }),
  };
}
