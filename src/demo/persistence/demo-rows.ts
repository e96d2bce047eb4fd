import type { DataSource, EntityManager } from 'typeorm';
import type { SkillView } from '../../modules/skills';
import { managerOf } from '../../platform/database/transaction-runner';
import type { DemoGroup, DemoPage } from '../demo-data';

/** A row's id, and whether this call created it. */
export type Ensured = readonly [id: number, created: boolean];

type PageText = DemoPage['en'];

/** A demo skill as the fixtures describe it. */
export type DemoSkillRow = Pick<
  SkillView,
  'identifier' | 'name' | 'description' | 'body' | 'isProcess' | 'enabled'
>;

/**
 * The SQL of the demo fixtures: the rows that no module has a creation use case for (the site,
 * its pages and texts, groups), and the skills, which the demo writes approved and ready (a
 * skill with its approved version 1: the API's four-eyes rule lets no single actor do that). Each
 * `ensure*` finds the row by its natural key and inserts it only where it is missing; the
 * linking rows are added where missing (`ON CONFLICT DO NOTHING`). Works in the caller's
 * transaction (`managerOf`).
 */
export class DemoRows {
  constructor(private readonly dataSource: DataSource) {}

  ensureSite(name: string): Promise<Ensured> {
    return this.ensure(
      ['SELECT id FROM site WHERE name = $1', [name]],
      ['INSERT INTO site (name) VALUES ($1) RETURNING id', [name]],
    );
  }

  async addSiteLanguage(siteId: number, languageId: number, isoCode: string, title: string): Promise<void> {
    await this.m().query(
      'INSERT INTO site_language (site_id, language_id, iso_code, title) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [siteId, languageId, isoCode, title],
    );
  }

  /** A page by its site (null: a page outside every site) and slug. */
  ensurePage(
    siteId: number | null,
    parentId: number | null,
    slug: string,
    sorting: number,
  ): Promise<Ensured> {
    return this.ensure(
      ['SELECT id FROM page WHERE site_id IS NOT DISTINCT FROM $1 AND slug = $2', [siteId, slug]],
      [
        'INSERT INTO page (parent_id, site_id, slug, sorting) VALUES ($1, $2, $3, $4) RETURNING id',
        [parentId, siteId, slug, sorting],
      ],
    );
  }

  /** Sets a page's rootline where it has none yet. */
  async setRootline(pageId: number, rootline: readonly number[]): Promise<void> {
    await this.m().query("UPDATE page SET rootline = $2 WHERE id = $1 AND rootline = '{}'", [
      pageId,
      rootline,
    ]);
  }

  /** A page's live text in one language, where it has none. */
  async addPageText(pageId: number, languageId: number, text: PageText): Promise<void> {
    await this.m().query(
      `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title)
       VALUES ($1, $2, 0, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [pageId, languageId, text.title, text.body, text.seoTitle],
    );
  }

  ensureGroup(group: DemoGroup, showPageIds: number[], editPageIds: number[]): Promise<Ensured> {
    return this.ensure(
      ['SELECT id FROM access_group WHERE name = $1', [group.name]],
      [
        `INSERT INTO access_group (name, grants, show_page_ids, edit_page_ids, edit_language_ids)
         VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [group.name, group.grants, showPageIds, editPageIds, group.languages],
      ],
    );
  }

  /** A skill, with its approved version 1 where it has no version. */
  async ensureSkill(skill: DemoSkillRow): Promise<Ensured> {
    const ensured = await this.ensure(
      ['SELECT id FROM skill WHERE identifier = $1', [skill.identifier]],
      [
        `INSERT INTO skill (identifier, name, description, body, is_process, enabled)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [skill.identifier, skill.name, skill.description, skill.body, skill.isProcess, skill.enabled],
      ],
    );
    // why: runs use approved versions only; a demo skill starts with its approved version 1.
    await this.m().query(
      `INSERT INTO skill_version (skill_id, version, name, description, body, is_process, state, approved_at)
       SELECT $1, 1, $2, $3, $4, $5, 'APPROVED', now()
        WHERE NOT EXISTS (SELECT 1 FROM skill_version WHERE skill_id = $1)`,
      [ensured[0], skill.name, skill.description, skill.body, skill.isProcess],
    );
    return ensured;
  }

  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  private async ensure(find: [string, unknown[]], insert: [string, unknown[]]): Promise<Ensured> {
    const existing = await this.idOf(find[0], find[1]);
    if (existing !== null) return [existing, false];
    const created = await this.idOf(insert[0], insert[1]);
    if (created === null) throw new Error(`seed: insert returned no id: ${insert[0]}`);
    return [created, true];
  }

  private async idOf(sql: string, params: unknown[]): Promise<number | null> {
    const rows: Array<{ id: number }> = await this.m().query(sql, params);
    return rows[0]?.id ?? null;
  }
}
