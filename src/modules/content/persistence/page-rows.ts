import type { PageTextView, PageView } from '../core/content.types';
import type { PageEntity } from './page.entity';

// The page rows the content repository reads, and the statements that read a page with its text.

/** The language ids of the site of the page under `alias`, ascending ('{}' outside every site). */
export const siteLanguageIdsOf = (alias: string): string =>
  `COALESCE((SELECT array_agg(l.language_id ORDER BY l.language_id) FROM site_language l
                         WHERE l.site_id = ${alias}.site_id), '{}')`;
/** The same as a column of `p`. */
export const SITE_LANGUAGE_IDS = `${siteLanguageIdsOf('p')} AS site_language_ids`;

/** The page columns a `PageRow` holds. */
export const PAGE_COLUMNS = ['id', 'parent_id', 'site_id', 'slug', 'sorting', 'rootline'] as const;

/**
 * A page (`$1`) with its text in one language (`$2`): the workspace's (`$3`) own row, else the
 * live one. `languages` adds the site's language ids. `lock` locks the row the text comes from
 * inside the caller's transaction: the workspace's own row for update (the write replaces it),
 * else the live row for share. why: a first write into a workspace only copies live, so live
 * must not change under it, but first writes into other workspaces of the same page need not
 * wait for it (with an update lock on live they queued behind one another's commits). One
 * text per variant, so each is prepared. `many`: the same for every (page, language, workspace)
 * of the arrays `$1`, `$2`, `$3`, each row with its `k` (the index into them, from 1), unlocked.
 */
function pageWithTextSql(languages: boolean, lock: boolean, many = false): string {
  const text = (column: string) =>
    `CASE WHEN w.workspace_id IS NOT NULL THEN w.${column} ELSE l.${column} END`;
  const [language, workspace] = many ? ['k.language_id', 'k.workspace_id'] : ['$2', '$3'];
  // why: OFFSET 0 keeps each lookup a subquery run per locator, on the text's whole key. Pulled
  // up into a join, the planner may look the rows up by page alone and filter the language and
  // workspace afterwards (seen: 50 ms over 5,000 workspaces of one page, with stale statistics).
  const keep = many ? ' OFFSET 0' : '';
  const from = many
    ? `unnest($1::int[], $2::int[], $3::int[]) WITH ORDINALITY AS k(page_id, language_id, workspace_id, k)
         JOIN page p ON p.id = k.page_id`
    : 'page p';
  return `SELECT ${many ? 'k.k, ' : ''}p.id, p.parent_id, p.site_id, p.slug, p.sorting, p.rootline,${languages ? ` ${SITE_LANGUAGE_IDS},` : ''}
              COALESCE(w.workspace_id, l.workspace_id) AS t_workspace_id, ${text('title')} AS title,
              ${text('body')} AS body, ${text('seo_title')} AS seo_title, ${text('seo_description')} AS seo_description
         FROM ${from}
         LEFT JOIN LATERAL (
           SELECT workspace_id, title, body, seo_title, seo_description FROM page_text
            WHERE page_id = p.id AND language_id = ${language} AND workspace_id = ${workspace}${lock ? ' FOR UPDATE' : ''}${keep}) w ON true
         LEFT JOIN LATERAL (
           SELECT workspace_id, title, body, seo_title, seo_description FROM page_text
            WHERE page_id = p.id AND language_id = ${language} AND workspace_id = 0 AND w.workspace_id IS NULL${lock ? ' FOR SHARE' : ''}${keep}) l ON true
        ${many ? '' : 'WHERE p.id = $1'}`;
}

export const PAGE_WITH_TEXT = pageWithTextSql(false, false);
export const PAGE_ACCESS_WITH_TEXT = pageWithTextSql(true, false);
export const PAGE_ACCESS_WITH_LOCKED_TEXT = pageWithTextSql(true, true);
export const PAGES_ACCESS_WITH_TEXTS = pageWithTextSql(true, false, true);

export interface PageWithTextRow extends PageRow {
  site_language_ids?: number[];
  t_workspace_id: number | null;
  title: string | null;
  body: string | null;
  seo_title: string | null;
  seo_description: string | null;
}

/** A page, its text (see `pageWithTextSql`) and, where asked for, its site's language ids. */
export interface PageWithText {
  readonly page: PageView;
  readonly text: PageTextView | null;
  readonly siteLanguageIds: number[];
}

export function toPageWithText(row: PageWithTextRow, languageId: number): PageWithText {
  const text: PageTextView | null =
    row.t_workspace_id === null
      ? null
      : {
          pageId: Number(row.id),
          languageId,
          workspaceId: Number(row.t_workspace_id),
          title: row.title ?? '',
          body: row.body ?? '',
          seoTitle: row.seo_title,
          seoDescription: row.seo_description,
        };
  return { page: toPageView(row), text, siteLanguageIds: (row.site_language_ids ?? []).map(Number) };
}

export interface PageRow {
  id: number;
  parent_id: number | null;
  site_id: number | null;
  slug: string;
  sorting: number;
  rootline: number[];
}

export function toPageView(p: PageEntity | PageRow): PageView {
  const row = p as Partial<PageEntity> & Partial<PageRow>;
  return {
    id: Number(row.id),
    parentId: row.parentId ?? row.parent_id ?? null,
    siteId: row.siteId ?? row.site_id ?? null,
    slug: row.slug ?? '',
    sorting: row.sorting ?? 0,
    rootline: (row.rootline ?? []).map(Number),
  };
}
