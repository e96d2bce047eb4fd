import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId } from '../../../common/ids';
import { badInput, notFound } from '../../../common/refusal';
import { editableLanguages, mayShowPage, showableRoots } from '../core/content-access.policy';
import { LIVE_WORKSPACE, PageTextView, PageView, SiteLanguageView, SiteView } from '../core/content.types';
import { ContentRepository } from '../persistence/content.repository';
import { ContentLoaders } from './content-loaders';

function checkArgument(name: string, value: number): void {
  if (value < 0) throw badInput(`${name} must not be negative`, { field: name });
}

/**
 * The content reads of the GraphQL API, for the viewer of the request: every page that leaves
 * here is one the viewer may show. Batched per request (`ContentLoaders`).
 */
@Injectable()
export class ContentQueries {
  // why: keyed by the request's context, so the caches live exactly as long as the request.
  private readonly perRequest = new WeakMap<RequestContext, ContentLoaders>();

  constructor(private readonly repository: ContentRepository) {}

  private loaders(ctx: RequestContext): ContentLoaders {
    let loaders = this.perRequest.get(ctx);
    if (!loaders) {
      loaders = new ContentLoaders(this.repository);
      this.perRequest.set(ctx, loaders);
    }
    return loaders;
  }

  /** Sites with at least one page the viewer may show (admins: all sites), by name. */
  async sites(ctx: RequestContext): Promise<SiteView[]> {
    const roots = showableRoots(ctx.viewer);
    if (roots === 'all') return this.repository.findSites('all');
    return this.repository.findSites(await this.repository.siteIdsWithPagesIn(roots));
  }

  /** The page, or null where it is unknown or hidden (alike). BAD_USER_INPUT for a malformed id. */
  async page(ctx: RequestContext, id: string): Promise<PageView | null> {
    const page = await this.loaders(ctx).pages.load(parseSerialId(id));
    return page && mayShowPage(ctx.viewer, page) ? page : null;
  }

  /**
   * The site's root page; for a viewer who may not show it, the site's topmost page they may
   * show (their entry into the tree). `sites` lists only sites where there is one.
   */
  async rootPage(ctx: RequestContext, site: SiteView): Promise<PageView> {
    const page = await this.repository.topmostPage(site.id, showableRoots(ctx.viewer));
    if (!page) throw notFound(`Site ${site.id} has no page you may show`);
    return page;
  }

  /** The page's children the viewer may show, in tree order. */
  async children(ctx: RequestContext, page: PageView): Promise<PageView[]> {
    const children = await this.loaders(ctx).children.load(page.id);
    return children.filter((c) => mayShowPage(ctx.viewer, c));
  }

  async site(ctx: RequestContext, siteId: number | null): Promise<SiteView | null> {
    return siteId === null ? null : this.loaders(ctx).sites.load(siteId);
  }

  async languages(ctx: RequestContext, site: SiteView): Promise<SiteLanguageView[]> {
    return this.loaders(ctx).siteLanguages.load(site.id);
  }

  /**
   * The page's languages the viewer may work in (start a conversation in, write): its site's
   * languages their groups grant; language 0 alone, unnamed, for a page outside every site.
   */
  async editableLanguages(ctx: RequestContext, page: PageView): Promise<SiteLanguageView[]> {
    const named = page.siteId === null ? [] : await this.loaders(ctx).siteLanguages.load(page.siteId);
    const ids = editableLanguages(
      ctx.viewer,
      page,
      named.map((l) => l.languageId),
    );
    return ids.map(
      (id) =>
        named.find((l) => l.languageId === id) ?? {
          siteId: 0,
          languageId: id,
          isoCode: '',
          title: 'Default language',
        },
    );
  }

  /**
   * The page's live title in the language, falling back to language 0's title, then the
   * slug (a blank title counts as none).
   */
  async title(ctx: RequestContext, page: PageView, languageId: number | null): Promise<string> {
    const language = languageId ?? 0;
    checkArgument('languageId', language);
    const texts = this.loaders(ctx).texts;
    const own = await texts.load({ pageId: page.id, languageId: language, workspaceId: LIVE_WORKSPACE });
    if (own && own.title.trim() !== '') return own.title;
    const fallback = await texts.load({ pageId: page.id, languageId: 0, workspaceId: LIVE_WORKSPACE });
    if (fallback && fallback.title.trim() !== '') return fallback.title;
    return page.slug;
  }

  /** The page's text in the language and workspace, falling back to live; null where none. */
  async text(
    ctx: RequestContext,
    page: PageView,
    languageId: number | null,
    workspaceId: number | null,
  ): Promise<PageTextView | null> {
    const key = { pageId: page.id, languageId: languageId ?? 0, workspaceId: workspaceId ?? LIVE_WORKSPACE };
    checkArgument('languageId', key.languageId);
    checkArgument('workspaceId', key.workspaceId);
    return this.loaders(ctx).texts.load(key);
  }
}
