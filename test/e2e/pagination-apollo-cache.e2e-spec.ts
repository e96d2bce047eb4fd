// Cursor pagination (docs/pagination.md) as Apollo Client consumes it: the pages of runs and
// the inbox, written into an InMemoryCache with relayStylePagination, merge into one list with
// every row once. The pages themselves are in pagination.e2e-spec.ts.
// why: Apollo Client 3's subpath packages are ESM with a CommonJS build beside them (see
// client-ids.e2e-spec.ts); the test imports those builds by file.
import { InMemoryCache } from '@apollo/client/cache/cache.cjs';
import { gql } from '@apollo/client/core/core.cjs';
import { relayStylePagination } from '@apollo/client/utilities/utilities.cjs';
import { print } from 'graphql';
import { useSeededRuns } from '../support/seeded-runs';
import type { GqlResponse } from '../support/test-app';

describe("Apollo Client's relayStylePagination over real pages", () => {
  const { t } = useSeededRuns(
    [{ count: 120, owners: ['alice', 'bob'], waitingEvery: 3, stepsPerRun: 0 }],
    60_000,
  );

  it.each([
    [
      'runs',
      'runs',
      `runs(first: $first, after: $after) { edges { cursor node { id __typename } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`,
      'admin',
    ],
    [
      'inboxConnection',
      'inboxConnection',
      `inboxConnection(first: $first, after: $after) { edges { cursor node { id __typename run { id __typename } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`,
      'bob',
    ],
  ])(
    '%s: pages written into the cache merge into one list, every row once',
    async (_name, field, selection, as) => {
      const cache = new InMemoryCache({
        typePolicies: { Query: { fields: { [field]: relayStylePagination() } } },
      });
      const query = gql(`query Page($first: Int, $after: String) { ${selection} }`);
      let after: string | null = null;
      let served: string[] = [];
      for (;;) {
        const res: GqlResponse<
          Record<
            string,
            {
              edges: Array<{ node: { id: string } }>;
              pageInfo: { hasNextPage: boolean; endCursor: string | null };
            }
          >
        > = await t.gql(print(query), { first: 25, after }, as);
        expect(res.errors).toBeUndefined();
        cache.writeQuery({ query, variables: { first: 25, after }, data: res.data! });
        const page = res.data![field]!;
        served = served.concat(page.edges.map((e) => e.node.id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      const merged = cache.readQuery<Record<string, { edges: Array<{ node: { id: string } }> }>>({
        query,
        variables: { first: 25 },
      });
      expect(served.length).toBeGreaterThan(25);
      expect(new Set(served).size).toBe(served.length);
      expect(merged![field]!.edges.map((e) => e.node.id)).toEqual(served);
    },
  );
});
