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
