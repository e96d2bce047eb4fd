import type { ApolloServerPlugin } from '@apollo/server';
import { Global, Injectable, Module } from '@nestjs/common';
import { getArgumentValues, Kind, OperationTypeNode } from 'graphql';
import type { GqlContext } from '../auth/access.guard';
import type { RequestContext } from '../auth/request-context';

/**
 * Starts a read the root field's resolver will make anyway, from its arguments and the caller;
 * true where it started one. It must not throw, refuse or write: the resolver runs every check
 * as before and takes up what was started (or reads again where nothing was).
 */
export type Prefetch = (args: Record<string, unknown>, ctx: RequestContext) => boolean;

/**
 * Root mutation fields whose first read may start as soon as Apollo knows the operation
 * (`didResolveOperation`: the caller authenticated, the document parsed and validated, the
 * limits' plugins passed), so that its round trip to the database runs while the rest of the
 * request's pipeline (Apollo's execution, Nest's guards and pipes) does its part, instead of
 * after it. A decision is the case it is for: its first statement reads the run, and everything
 * in front of the resolver takes about as long as that round trip (bench/README.md, "Issue 13,
 * seventeenth round").
 *
 * What it does not change: the resolver still runs only if the access rule and the rate limit
 * let it, and refuses bad input itself; an operation refused there leaves its reads unused (one
 * indexed read per registered field, beside the token's lookup every request costs; see
 * docs/security.md). Over graphql-ws nothing is prefetched.
 */
@Injectable()
export class OperationPrefetch {
  private readonly byField = new Map<string, Prefetch>();

  /** `field` is a root mutation field; one prefetch per field. */
  register(field: string, prefetch: Prefetch): void {
    if (this.byField.has(field)) throw new Error(`a prefetch for ${field} is registered already`);
    this.byField.set(field, prefetch);
  }

  /** The Apollo plugin that starts the registered prefetches of an operation's root fields. */
  plugin(): ApolloServerPlugin<GqlContext> {
    return {
      requestDidStart: () =>
        Promise.resolve({
          didResolveOperation: ({ operation, request, contextValue, schema }) => {
            const ctx = contextValue.ctx;
            const root = schema.getMutationType();
            if (operation?.operation !== OperationTypeNode.MUTATION || !ctx?.user || !root) {
              return Promise.resolve();
            }
            let started = false;
            for (const selection of operation.selectionSet.selections) {
              if (selection.kind !== Kind.FIELD) continue;
              const prefetch = this.byField.get(selection.name.value);
              const field = prefetch ? root.getFields()[selection.name.value] : undefined;
              if (!prefetch || !field) continue;
              try {
                started =
                  prefetch(getArgumentValues(field, selection, request.variables ?? {}), ctx) || started;
              } catch {
                // why: arguments that do not coerce are refused by the execution that follows.
              }
            }
            // why: node-postgres' pool hands out an idle connection on `process.nextTick`, which
            // runs only once the promise jobs queued before it ran out; the rest of the request's
            // pipeline is such a chain of promise jobs, so the read would leave with the resolver.
            // Yielding to the event loop once lets it leave now.
            return started ? new Promise<void>((resolve) => setImmediate(resolve)) : Promise.resolve();
          },
        }),
    };
  }
}

/** The prefetch registry for every module (resolvers register their fields). */
@Global()
@Module({ providers: [OperationPrefetch], exports: [OperationPrefetch] })
export class OperationPrefetchModule {}
