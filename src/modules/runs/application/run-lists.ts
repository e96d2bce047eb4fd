import { Injectable } from '@nestjs/common';
import { cursorTimestamp, decodeCursor, encodeCursor } from '../../../common/cursor';
import { parseSerialId, parseUuid } from '../../../common/ids';
import type { RequestContext } from '../../../platform/auth/request-context';
import type { RunStatus } from '../core/run-status';
import type { RunView } from '../core/run-view';
import {
  RunListsRepository,
  type KeyedRun,
  type RunListFilter,
  type RunPageKey,
} from '../persistence/run-lists.repository';
import { pageOffset, pageSize } from '../../../common/page-size';

/** Largest page of a run list or the inbox a client may ask for. */
export const MAX_RUN_PAGE = 200;

export interface RunListQuery {
  readonly status?: readonly RunStatus[] | null;
  readonly ownerId?: string | null;
  readonly configurationId?: string | null;
  readonly first: number;
  /** A cursor from an earlier page (`pageInfo.endCursor` or an edge's cursor). */
  readonly after?: string | null;
  /** Deprecated offset paging: rows skipped after `after` (or from the start). */
  readonly offset?: number | null;
}

export interface RunEdge {
  readonly cursor: string;
  readonly run: RunView;
}

/** One page of runs, with what counting the whole list needs (null: the viewer sees none). */
export interface RunPage {
  readonly edges: readonly RunEdge[];
  readonly hasNextPage: boolean;
  readonly filter: RunListFilter | null;
}

const RUNS = 'runs';
const INBOX = 'inbox';

/**
 * The lists of runs that grow without bound: `runs` (newest first) and the waiting runs of the
 * inbox (longest wait first), paged by cursor (docs/pagination.md). One more row than asked is
 * read to answer `hasNextPage` without a count.
 */
@Injectable()
export class RunLists {
  constructor(private readonly lists: RunListsRepository) {}

  /** Own runs; all runs for admins (who may filter by owner). */
  async runs(ctx: RequestContext, query: RunListQuery): Promise<RunPage> {
    const user = ctx.viewer;
    const ownerId = query.ownerId != null ? parseSerialId(query.ownerId, 'ownerId') : null;
    const after = query.after ? keyOf(RUNS, query.after) : null;
    if (!user.isAdmin && ownerId !== null && ownerId !== user.id) {
      return { edges: [], hasNextPage: false, filter: null };
    }
    const filter: RunListFilter = {
      ownerId: user.isAdmin ? ownerId : user.id,
      configurationId:
        query.configurationId != null ? parseSerialId(query.configurationId, 'configurationId') : null,
      statuses: query.status ?? null,
    };
    const limit = pageSize(query.first, MAX_RUN_PAGE);
    const rows = await this.lists.runs(filter, limit + 1, after, pageOffset(query.offset));
    return { ...page(RUNS, rows, limit), filter };
  }

  /** How many runs the page's list holds (0 where the viewer sees none). */
  async count(page: RunPage): Promise<number> {
    return page.filter ? this.lists.count(page.filter) : 0;
  }

  /** Waiting runs, longest wait first; `ownerId` null for every owner. */
  async waiting(
    ownerId: number | null,
    first: number,
    after: string | null,
    offset = 0,
  ): Promise<{ edges: readonly RunEdge[]; hasNextPage: boolean }> {
    const key = after ? keyOf(INBOX, after) : null;
    const limit = pageSize(first, MAX_RUN_PAGE);
    const rows = await this.lists.waiting(ownerId, limit + 1, key, pageOffset(offset));
    return page(INBOX, rows, limit);
  }
}

function page(list: string, rows: readonly KeyedRun[], limit: number) {
  return {
    edges: rows
      .slice(0, limit)
      .map((row) => ({ run: row.run, cursor: encodeCursor(list, [row.key.at, row.key.id]) })),
    hasNextPage: rows.length > limit,
  };
}

function keyOf(list: string, cursor: string): RunPageKey {
  const [at, id] = decodeCursor(list, cursor, ['string', 'string']);
  return { at: cursorTimestamp(at!), id: parseUuid(String(id), 'after') };
}
