import type { GraphQLRequestContextDidResolveOperation, GraphQLRequestListener } from '@apollo/server';
import { buildSchema, getOperationAST, parse } from 'graphql';
import type { GqlContext } from '../auth/access.guard';
import type { AuthUser } from '../auth/auth-user';
import { RequestContext } from '../auth/request-context';
import { OperationPrefetch } from './operation-prefetch';

const schema = buildSchema(`
  input DecideInput { runId: ID! }
  type Query { run(id: ID!): String }
  type Mutation { approveRun(input: DecideInput!): String, other(id: ID!): String }
`);

const user = { id: 7, username: 'carol' } as unknown as AuthUser;

/** Runs the plugin's `didResolveOperation` for `source` as `caller`. */
async function resolve(
  prefetch: OperationPrefetch,
  source: string,
  variables: Record<string, unknown> = {},
  caller: AuthUser | null = user,
): Promise<void> {
  const document = parse(source);
  const listener = (await prefetch.plugin().requestDidStart!(
    {} as never,
  )) as GraphQLRequestListener<GqlContext>;
  await listener.didResolveOperation!({
    schema,
    document,
    operation: getOperationAST(document)!,
    request: { variables },
    contextValue: { ctx: new RequestContext(caller) },
  } as unknown as GraphQLRequestContextDidResolveOperation<GqlContext>);
}

describe('OperationPrefetch', () => {
  let seen: Array<{ field: string; args: Record<string, unknown>; userId: number | undefined }>;
  let prefetch: OperationPrefetch;
  beforeEach(() => {
    seen = [];
    prefetch = new OperationPrefetch();
    prefetch.register('approveRun', (args, ctx) => {
      seen.push({ field: 'approveRun', args, userId: ctx.user?.id });
      return true;
    });
  });

  it('hands a registered root mutation field its arguments, from variables or literals, with the caller', async () => {
    await resolve(prefetch, 'mutation($i: DecideInput!) { a: approveRun(input: $i) other(id: "1") }', {
      i: { runId: 'r-1' },
    });
    await resolve(prefetch, 'mutation { approveRun(input: { runId: "r-2" }) }');
    expect(seen).toEqual([
      { field: 'approveRun', args: { input: { runId: 'r-1' } }, userId: 7 },
      { field: 'approveRun', args: { input: { runId: 'r-2' } }, userId: 7 },
    ]);
  });

  it('starts nothing for a query, an anonymous caller, or fields it does not know', async () => {
    await resolve(prefetch, 'query { run(id: "1") }');
    await resolve(prefetch, 'mutation { approveRun(input: { runId: "r-3" }) }', {}, null);
    await resolve(prefetch, 'mutation { other(id: "1") }');
    expect(seen).toEqual([]);
  });

  it('a prefetch that throws, or arguments that do not coerce, fail nothing: the execution answers', async () => {
    prefetch.register('other', () => {
      throw new Error('boom');
    });
    await expect(resolve(prefetch, 'mutation { other(id: "1") }')).resolves.toBeUndefined();
    await expect(
      resolve(prefetch, 'mutation($i: DecideInput!) { approveRun(input: $i) }'),
    ).resolves.toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('refuses a second prefetch for the same field', () => {
    expect(() => prefetch.register('approveRun', () => false)).toThrow(/registered already/);
  });
});
