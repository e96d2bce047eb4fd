import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { directQuery } from '../../../platform/database/direct-query';
import { joinedName, type JoinedRead } from '../../../platform/database/joined-read';
import { managerOf } from '../../../platform/database/transaction-runner';
import { PageSearchHit, PageTextView, PageView, SiteLanguageView, SiteView } from '../core/content.types';
import { PageTextChange, PageTextFields } from '../core/page-text-changes';
import { PAGE_TEXT_COLUMNS } from './guarded-text-write';
import {
  PAGE_ACCESS_WITH_LOCKED_TEXT,
  PAGE_ACCESS_WITH_TEXT,
  PAGE_COLUMNS,
  PAGE_WITH_TEXT,
  PAGES_ACCESS_WITH_TEXTS,
  SITE_LANGUAGE_IDS,
  siteLanguageIdsOf,
  toPageView,
  toPageWithText,
  type PageRow,
  type PageWithText,
  type PageWithTextRow,
} from './page-rows';
import { PageTextEntity } from './page-text.entity';
import { PageEntity } from './page.entity';
import { SiteLanguageEntity } from './site-language.entity';
import { SiteEntity } from './site.entity';

/** Subtree roots for a permission filter in SQL; `'all'` means no filter (admins). */
export type RootsFilter = 'all' | readonly number[];

function toTextView(t: PageTextEntity): PageTextView {
  return {
    pageId: t.pageId,
    languageId: t.languageId,
    workspaceId: t.workspaceId,
    title: t.title,
    body: t.body,
    seoTitle: t.seoTitle,
    seoDescription: t.seoDescription,
  };
}

/** The root page of the first site (lowest site id), by the index of roots per site. */
const FIRST_ROOT_PAGE_ID =
  'SELECT id FROM page WHERE parent_id IS NULL AND site_id IS NOT NULL ORDER BY site_id, id LIMIT 1';

/** Reads and writes sites, pages and page texts. Every method runs on the given manager. */
@Injectable()
export class ContentRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  async findPages(ids: readonly number[]): Promise<PageView[]> {
    if (ids.length === 0) return [];
    const rows = await this.m().find(PageEntity, { where: { id: In([...ids]) } });
    return rows.map(toPageView);
  }

  /**
   * The page a run is about, with its site's languages, read in the run's own statement (a
   * decision reads it with its run): the page keyed by `on` (the run's subject page), or where
   * that is null the first site's root page, the page the page tools of a run without a subject
   * default to (`firstRootPageId`). What `findPagesWithSiteLanguages` answers for that page,
   * without a round trip of its own.
   */
  readonly joinedRunPageWithSiteLanguages: JoinedRead<{ page: PageView; siteLanguageIds: number[] }> = {
    sql: (alias, on) => ({
      // why: PostgreSQL runs the fallback (an init plan) only for a row whose key is null.
      join: `LEFT JOIN page ${alias} ON ${alias}.id = COALESCE(${on}, (${FIRST_ROOT_PAGE_ID}))`,
      columns: [
        ...PAGE_COLUMNS.map((c) => `${alias}.${c} AS "${joinedName(alias, c)}"`),
        `${siteLanguageIdsOf(alias)} AS "${joinedName(alias, 'site_language_ids')}"`,
      ].join(', '),
    }),
    read: (raw, alias) => {
      const at = (column: string): unknown => raw[joinedName(alias, column)];
      if (at('id') == null) return null;
      const page = toPageView({
        id: at('id') as number,
        parent_id: at('parent_id') as number | null,
        site_id: at('site_id') as number | null,
        slug: at('slug') as string,
        sorting: at('sorting') as number,
        rootline: at('rootline') as number[],
      });
      return { page, siteLanguageIds: (at('site_language_ids') as number[]).map(Number) };
    },
  };

  /**
   * Pages with the language ids of their site (ascending), in one statement: what the content
   * policies need to judge a page for any user (the decider gate, the inbox).
   */
  async findPagesWithSiteLanguages(
    ids: readonly number[],
  ): Promise<Array<{ page: PageView; siteLanguageIds: number[] }>> {
    if (ids.length === 0) return [];
    const rows: Array<PageRow & { site_language_ids: number[] }> = await this.m().query(
      `SELECT ${PAGE_COLUMNS.map((c) => `p.${c}`).join(', ')}, ${SITE_LANGUAGE_IDS}
         FROM page p WHERE p.id = ANY($1::int[])`,
      [[...ids]],
    );
    return rows.map((r) => ({ page: toPageView(r), siteLanguageIds: r.site_language_ids.map(Number) }));
  }

  async findPage(id: number): Promise<PageView | null> {
    return (await this.findPages([id]))[0] ?? null;
  }

  /** The children of the given pages, in tree order (sorting, then id). */
  async childrenOf(parentIds: readonly number[]): Promise<PageView[]> {
    if (parentIds.length === 0) return [];
    const rows = await this.m().find(PageEntity, {
      where: { parentId: In([...parentIds]) },
      order: { sorting: 'ASC', id: 'ASC' },
    });
    return rows.map(toPageView);
  }

  /** The root page of the first site (lowest site id): where a run without a subject starts. */
  async firstRootPageId(): Promise<number | null> {
    const rows: Array<{ id: number }> = await this.m().query(FIRST_ROOT_PAGE_ID);
    return rows[0] ? Number(rows[0].id) : null;
  }

  /** The site's shallowest page within the roots (the root page itself for 'all'). */
  async topmostPage(siteId: number, roots: RootsFilter): Promise<PageView | null> {
    const rows: PageRow[] = await this.m().query(
      `SELECT id, parent_id, site_id, slug, sorting, rootline FROM page
        WHERE site_id = $1 AND ($2::boolean OR rootline && $3::int[] OR id = ANY($3::int[]))
        ORDER BY cardinality(rootline), sorting, id LIMIT 1`,
      [siteId, roots === 'all', roots === 'all' ? [] : roots],
    );
    return rows[0] ? toPageView(rows[0]) : null;
  }

  /** Sites by id; all sites for 'all'. Ordered by name. */
  async findSites(ids: readonly number[] | 'all'): Promise<SiteView[]> {
    if (ids !== 'all' && ids.length === 0) return [];
    const rows = await this.m().find(SiteEntity, {
      where: ids === 'all' ? {} : { id: In([...ids]) },
      order: { name: 'ASC', id: 'ASC' },
    });
    return rows.map((s) => ({ id: s.id, name: s.name }));
  }

  /** Ids of the sites holding at least one page within the roots. */
  async siteIdsWithPagesIn(roots: readonly number[]): Promise<number[]> {
    if (roots.length === 0) return [];
    const rows: Array<{ site_id: number }> = await this.m().query(
      'SELECT DISTINCT site_id FROM page WHERE site_id IS NOT NULL AND (rootline && $1::int[] OR id = ANY($1::int[]))',
      [roots],
    );
    return rows.map((r) => Number(r.site_id));
  }

  /** The languages of the given sites, by site then language id. */
  async siteLanguages(siteIds: readonly number[]): Promise<SiteLanguageView[]> {
    if (siteIds.length === 0) return [];
    const rows = await this.m().find(SiteLanguageEntity, {
      where: { siteId: In([...siteIds]) },
      order: { siteId: 'ASC', languageId: 'ASC' },
    });
    return rows.map((l) => ({
      siteId: l.siteId,
      languageId: l.languageId,
      isoCode: l.isoCode,
      title: l.title,
    }));
  }

  /** The texts of the pages in one language, in the given workspaces. */
  async findTexts(
    pageIds: readonly number[],
    languageId: number,
    workspaceIds: readonly number[],
  ): Promise<PageTextView[]> {
    if (pageIds.length === 0) return [];
    const rows = await this.m().find(PageTextEntity, {
      where: { pageId: In([...pageIds]), languageId, workspaceId: In([...workspaceIds]) },
    });
    return rows.map(toTextView);
  }

  /**
   * A page with its text in one language, in one statement: the workspace's own row, else the
   * live one (`text` null where the page has neither). Null for an unknown page. Prepared:
   * the agent's `pages_read` sends it once per call.
   */
  async findPageWithText(
    pageId: number,
    languageId: number,
    workspaceId: number,
  ): Promise<{ page: PageView; text: PageTextView | null } | null> {
    return this.pageWithText(PAGE_WITH_TEXT, pageId, languageId, workspaceId);
  }

  /**
   * As `findPageWithText`, with the page's site language ids (what the content policies need
   * to judge a write), in one statement; `lock` locks the text row it returns (see `pageWithTextSql`),
   * inside the caller's transaction. Null for an unknown page.
   */
  async findPageAccessWithText(
    pageId: number,
    languageId: number,
    workspaceId: number,
    options: { lock?: boolean } = {},
  ): Promise<PageWithText | null> {
    const sql = options.lock ? PAGE_ACCESS_WITH_LOCKED_TEXT : PAGE_ACCESS_WITH_TEXT;
    return this.pageWithText(sql, pageId, languageId, workspaceId);
  }

  /**
   * `findPageAccessWithText` (unlocked) for several page texts at once, in one statement: one
   * answer per locator, in their order, null for an unknown page.
   */
  async findPagesAccessWithTexts(
    at: ReadonlyArray<{ pageId: number; languageId: number; workspaceId: number }>,
  ): Promise<Array<PageWithText | null>> {
    if (at.length === 0) return [];
    const rows = await directQuery<PageWithTextRow & { k: string }>(this.m(), PAGES_ACCESS_WITH_TEXTS, [
      at.map((l) => l.pageId),
      at.map((l) => l.languageId),
      at.map((l) => l.workspaceId),
    ]);
    const found = new Map(rows.map((r) => [Number(r.k) - 1, r]));
    return at.map((l, i) => {
      const row = found.get(i);
      return row ? toPageWithText(row, l.languageId) : null;
    });
  }

  /** One of the `pageWithTextSql` statements for a page. */
  private async pageWithText(
    sql: string,
    pageId: number,
    languageId: number,
    workspaceId: number,
  ): Promise<PageWithText | null> {
    const rows = await directQuery<PageWithTextRow>(this.m(), sql, [pageId, languageId, workspaceId]);
    return rows[0] ? toPageWithText(rows[0], languageId) : null;
  }

  /** One text row; `lock` takes a row lock (FOR UPDATE) inside the caller's transaction. */
  async findText(
    pageId: number,
    languageId: number,
    workspaceId: number,
    options: { lock?: boolean } = {},
  ): Promise<PageTextView | null> {
    const row = await this.m().findOne(PageTextEntity, {
      where: { pageId, languageId, workspaceId },
      ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return row ? toTextView(row) : null;
  }

  /**
   * Creates the text row of a workspace with the given fields, unless one exists; returns
   * whether this call created it. why: ON CONFLICT DO NOTHING lets two concurrent first writes
   * agree: the loser waits for the winner's commit, gets false and updates the winner's row.
   */
  async insertText(
    pageId: number,
    languageId: number,
    workspaceId: number,
    fields: PageTextFields,
  ): Promise<boolean> {
    const rows = await directQuery(
      this.m(),
      `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title, seo_description, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now())
       ON CONFLICT (page_id, language_id, workspace_id) DO NOTHING RETURNING page_id`,
      [pageId, languageId, workspaceId, fields.title, fields.body, fields.seoTitle, fields.seoDescription],
    );
    return rows.length === 1;
  }

  /** Writes the changed fields of one text row; returns how many rows changed (0 or 1). */
  async updateTextFields(
    pageId: number,
    languageId: number,
    workspaceId: number,
    changes: readonly PageTextChange[],
  ): Promise<number> {
    if (changes.length === 0) return 0;
    const sets = changes.map((c, i) => `${PAGE_TEXT_COLUMNS[c.field]} = $${i + 4}`);
    const result: [unknown[], number] = await this.m().query(
      `UPDATE page_text SET ${sets.join(', ')}, updated_at = now()
        WHERE page_id = $1 AND language_id = $2 AND workspace_id = $3`,
      [pageId, languageId, workspaceId, ...changes.map((c) => c.to)],
    );
    return result[1];
  }

  /**
   * Pages within the roots whose live title or body contains the pattern (ILIKE, the caller
   * escapes it), one hit per page with its lowest matching language, by page id.
   */
  async searchLive(pattern: string, roots: RootsFilter, limit: number): Promise<PageSearchHit[]> {
    const rows: Array<{
      id: number;
      site_id: number | null;
      slug: string;
      language_id: number;
      title: string;
    }> = await this.m().query(
      `SELECT DISTINCT ON (p.id) p.id, p.site_id, p.slug, t.language_id, t.title
           FROM page p JOIN page_text t ON t.page_id = p.id AND t.workspace_id = 0
          WHERE (t.title ILIKE $1 OR t.body ILIKE $1)
            AND ($2::boolean OR p.rootline && $3::int[] OR p.id = ANY($3::int[]))
          ORDER BY p.id, t.language_id
          LIMIT $4`,
      [pattern, roots === 'all', roots === 'all' ? [] : roots, limit],
    );
    return rows.map((r) => ({
      pageId: Number(r.id),
      siteId: r.site_id === null ? null : Number(r.site_id),
      slug: r.slug,
      languageId: Number(r.language_id),
      title: r.title,
    }));
  }
}
