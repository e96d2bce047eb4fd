import { Injectable } from '@nestjs/common';
import { BatchLoader } from '../../../common/batch-loader';
import { PageAccess, PagesService } from './pages.service';

/**
 * Pages with their languages for the resolvers of one request: the lookups a list of runs
 * issues in one tick (an inbox page of up to 200 items) become one `accessOf` call (one
 * statement). Unfiltered, like `accessOf`: callers judge the pages for their viewer.
 */
@Injectable()
export class PageAccessLookup {
  // why: keyed by the request's context object, so batches never mix requests (each may run
  // in its own transaction); answers are not kept, because a subscription's context lives
  // as long as its connection and page trees may change meanwhile.
  private readonly perRequest = new WeakMap<object, BatchLoader<number, PageAccess | null>>();

  constructor(private readonly pages: PagesService) {}

  /** The pages among `pageIds` that exist, by id. */
  async load(request: object, pageIds: readonly number[]): Promise<Map<number, PageAccess>> {
    if (pageIds.length === 0) return new Map();
    const loader = this.loaderFor(request);
    const found = await Promise.all([...new Set(pageIds)].map((id) => loader.load(id)));
    return new Map(found.flatMap((a) => (a ? [[a.page.id, a] as const] : [])));
  }

  private loaderFor(request: object): BatchLoader<number, PageAccess | null> {
    let loader = this.perRequest.get(request);
    if (!loader) {
      loader = new BatchLoader<number, PageAccess | null>(
        String,
        async (ids) => new Map([...(await this.pages.accessOf(ids))].map(([id, a]) => [String(id), a])),
        null,
        { keep: false },
      );
      this.perRequest.set(request, loader);
    }
    return loader;
  }
}
