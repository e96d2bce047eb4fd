import { Type } from '@nestjs/common';
import { Field, ObjectType } from '@nestjs/graphql';

/**
 * Relay's page information, as Apollo Client's `relayStylePagination` reads it. Pages only go
 * forward (`first` / `after`), so `hasPreviousPage` says whether the page started after a
 * cursor, not whether rows exist before it.
 */
@ObjectType('PageInfo', { description: 'Where a page of a cursor-paged list ends (docs/pagination.md).' })
export class PageInfoModel {
  @Field({ description: 'More rows follow: ask again with `after: endCursor`.' }) hasNextPage: boolean;
  @Field({ description: 'The page was asked for after a cursor.' }) hasPreviousPage: boolean;
  @Field(() => String, { nullable: true, description: 'The cursor of the first row; null on an empty page.' })
  startCursor: string | null;
  @Field(() => String, { nullable: true, description: 'The cursor of the last row; null on an empty page.' })
  endCursor: string | null;
}

export function pageInfoOf(
  cursors: readonly string[],
  hasNextPage: boolean,
  after: string | null,
): PageInfoModel {
  return {
    hasNextPage,
    hasPreviousPage: after !== null && after !== undefined,
    startCursor: cursors[0] ?? null,
    endCursor: cursors[cursors.length - 1] ?? null,
  };
}

/** The edge type of a connection: a node and the opaque cursor after it. */
export function EdgeType<T>(node: Type<T>) {
  @ObjectType({ isAbstract: true })
  abstract class Edge {
    @Field({ description: 'Pass as `after` to continue after this row.' }) cursor: string;
    @Field(() => node) node: T;
  }
  return Edge;
}

/** A page as the application layer answers it: edges with cursors, and whether more follow. */
export interface EdgePage<T> {
  readonly edges: ReadonlyArray<{ readonly cursor: string; readonly node: T }>;
  readonly hasNextPage: boolean;
  /** Where the page knows it (backward pages); else whether it was asked after a cursor. */
  readonly hasPreviousPage?: boolean;
}

/** A connection (nodes, edges, pageInfo) of a page, its nodes mapped to their GraphQL models. */
export function connectionOf<T, M>(page: EdgePage<T>, after: string | null, map: (node: T) => M) {
  const edges = page.edges.map((edge) => ({ cursor: edge.cursor, node: map(edge.node) }));
  const cursors = edges.map((edge) => edge.cursor);
  const pageInfo = pageInfoOf(cursors, page.hasNextPage, after);
  if (page.hasPreviousPage !== undefined) pageInfo.hasPreviousPage = page.hasPreviousPage;
  return { nodes: edges.map((edge) => edge.node), edges, pageInfo };
}
