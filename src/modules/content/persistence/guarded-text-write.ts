import { PageTextChange, PageTextFields } from '../core/page-text-changes';

/**
 * A write of one page text that rides in another module's statement (the run's completion of
 * the call that makes it), so the two commit together with no transaction of their own. It is
 * the body of a data-modifying CTE that returns one row when it wrote and none when it did not:
 * it writes only while the host's CTE `gate` has a row (the run's lease) and the text is still
 * the one the update was computed from (checked, and locked, inside the statement). Its
 * parameters are numbered from `$<first>`.
 */
export interface GuardedTextWrite {
  sql(first: number, gate: string): string;
  readonly params: readonly unknown[];
}

/** Where the text is: page, language, workspace. */
export interface TextLocator {
  readonly pageId: number;
  readonly languageId: number;
  readonly workspaceId: number;
}

/** The column of each editable field of `page_text`. */
export const PAGE_TEXT_COLUMNS: Readonly<Record<PageTextChange['field'], string>> = {
  title: 'title',
  body: 'body',
  seoTitle: 'seo_title',
  seoDescription: 'seo_description',
};

/** `$n` with a cast, numbered from `first`. */
function param(first: number, offset: number, type: string): string {
  return `$${first + offset}::${type}`;
}

/** The four fields of a text row equal (NULL equal to NULL) to four parameters from `at`. */
function fieldsStill(first: number, at: number): string {
  return `(title, body, seo_title, seo_description) IS NOT DISTINCT FROM
            (${param(first, at, 'text')}, ${param(first, at + 1, 'text')}, ${param(first, at + 2, 'text')}, ${param(first, at + 3, 'text')})`;
}

function fieldValues(fields: PageTextFields): unknown[] {
  return [fields.title, fields.body, fields.seoTitle, fields.seoDescription];
}

/**
 * The changed fields of the workspace's own row, while that row still holds `current`. A
 * concurrent update makes PostgreSQL check the condition again on the row it committed
 * (read committed): then nothing is written.
 */
export function guardedUpdate(
  at: TextLocator,
  current: PageTextFields,
  changes: readonly PageTextChange[],
): GuardedTextWrite {
  return {
    params: [at.pageId, at.languageId, at.workspaceId, ...fieldValues(current), ...changes.map((c) => c.to)],
    sql: (first, gate) => {
      const sets = changes.map((c, i) => `${PAGE_TEXT_COLUMNS[c.field]} = ${param(first, 7 + i, 'text')}`);
      return `UPDATE page_text SET ${sets.join(', ')}, updated_at = now()
               WHERE page_id = ${param(first, 0, 'int')} AND language_id = ${param(first, 1, 'int')}
                 AND workspace_id = ${param(first, 2, 'int')} AND ${fieldsStill(first, 3)}
                 AND EXISTS (SELECT 1 FROM ${gate})
               RETURNING page_id`;
    },
  };
}

/**
 * A workspace's first write: its own row, the live text `live` with the changes (`written`),
 * while live still holds `live` (read under a share lock, as the transactional write reads it)
 * and the workspace has no row yet (a concurrent first write wins the conflict: nothing here).
 */
export function guardedCopy(
  at: TextLocator,
  live: PageTextFields,
  written: PageTextFields,
): GuardedTextWrite {
  return {
    params: [at.pageId, at.languageId, at.workspaceId, ...fieldValues(written), ...fieldValues(live)],
    sql: (
      first,
      gate,
    ) => `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title, seo_description, updated_at)
         SELECT ${param(first, 0, 'int')}, ${param(first, 1, 'int')}, ${param(first, 2, 'int')}, ${param(first, 3, 'text')},
                ${param(first, 4, 'text')}, ${param(first, 5, 'text')}, ${param(first, 6, 'text')}, now()
           FROM ${gate}
          WHERE EXISTS (SELECT 1 FROM page_text
                         WHERE page_id = ${param(first, 0, 'int')} AND language_id = ${param(first, 1, 'int')}
                           AND workspace_id = 0 AND ${fieldsStill(first, 7)} FOR SHARE)
         ON CONFLICT (page_id, language_id, workspace_id) DO NOTHING
         RETURNING page_id`,
  };
}
