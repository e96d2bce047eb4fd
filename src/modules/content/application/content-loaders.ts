import { LIVE_WORKSPACE, PageTextView, PageView, SiteLanguageView, SiteView } from '../core/content.types';
import { ContentRepository } from '../persistence/content.repository';
import { BatchLoader } from '../../../common/batch-loader';

export interface TextKey {
  readonly pageId: number;
  readonly languageId: number;
  readonly workspaceId: number;
}

const textKey = (k: TextKey): string => `${k.pageId}:${k.languageId}:${k.workspaceId}`;

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/**
 * The batching caches of one GraphQL request: a tree of pages with their titles and texts
 * costs one query per level and kind, not one per page. Unfiltered: permissions are applied
 * by `ContentQueries`.
 */
export class ContentLoaders {
  readonly pages = new BatchLoader<number, PageView | null>(
    String,
    async (ids) => new Map((await this.repository.findPages(ids)).map((p) => [String(p.id), p])),
    null,
  );

  readonly children = new BatchLoader<number, PageView[]>(
    String,
    async (parentIds) => {
      const rows = await this.repository.childrenOf(parentIds);
      return groupBy(rows, (p) => String(p.parentId));
    },
    [],
  );

  readonly sites = new BatchLoader<number, SiteView | null>(
    String,
    async (ids) => new Map((await this.repository.findSites(ids)).map((s) => [String(s.id), s])),
    null,
  );

  readonly siteLanguages = new BatchLoader<number, SiteLanguageView[]>(
    String,
    async (siteIds) => groupBy(await this.repository.siteLanguages(siteIds), (l) => String(l.siteId)),
    [],
  );

  /** A text with the live fallback: the workspace's own row, else the live row, else null. */
  readonly texts = new BatchLoader<TextKey, PageTextView | null>(
    textKey,
    (keys) => this.loadTexts(keys),
    null,
  );

  constructor(private readonly repository: ContentRepository) {}

  private async loadTexts(keys: TextKey[]): Promise<Map<string, PageTextView | null>> {
    const found = new Map<string, PageTextView | null>();
    const byLanguageAndWorkspace = groupBy(keys, (k) => `${k.languageId}:${k.workspaceId}`);
    for (const group of byLanguageAndWorkspace.values()) {
      const { languageId, workspaceId } = group[0]!;
      const workspaces = workspaceId === LIVE_WORKSPACE ? [LIVE_WORKSPACE] : [workspaceId, LIVE_WORKSPACE];
      const rows = await this.repository.findTexts(
        group.map((k) => k.pageId),
        languageId,
        workspaces,
      );
      for (const k of group) {
        const own = rows.find((r) => r.pageId === k.pageId && r.workspaceId === workspaceId);
        const live = rows.find((r) => r.pageId === k.pageId && r.workspaceId === LIVE_WORKSPACE);
        found.set(textKey(k), own ?? live ?? null);
      }
    }
    return found;
  }
}
