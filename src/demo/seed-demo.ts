import { DataSource, EntityManager } from 'typeorm';
import { OperatorAccounts } from '../modules/auth';
import { RequestContext } from '../platform/auth/request-context';
import { TransactionRunner } from '../platform/database/transaction-runner';
import {
  DEMO_CONFIGURATIONS,
  DEMO_GROUPS,
  DEMO_PAGES,
  DEMO_SITE,
  DEMO_SKILLS,
  DEMO_TASKS,
  DEMO_USERS,
  ORPHAN_PAGE,
} from './demo-data';

export interface SeedResult {
  /** True when this call created the demo data (first load). */
  readonly created: boolean;
}

async function idOf(m: EntityManager, sql: string, params: unknown[]): Promise<number | null> {
  const rows: Array<{ id: number }> = await m.query(sql, params);
  return rows[0]?.id ?? null;
}

async function ensure(
  m: EntityManager,
  find: [string, unknown[]],
  insert: [string, unknown[]],
): Promise<[number, boolean]> {
  const existing = await idOf(m, find[0], find[1]);
  if (existing !== null) return [existing, false];
  const created = await idOf(m, insert[0], insert[1]);
  if (created === null) throw new Error(`seed: insert returned no id: ${insert[0]}`);
  return [created, true];
}

/**
 * Loads the demo data set (docs/demo-data.md). Idempotent: every record is looked
 * up by its natural key first and only created when missing; existing records are left as
 * they are, so a second run changes nothing.
 */
export async function seedDemo(dataSource: DataSource): Promise<SeedResult> {
  const accounts = OperatorAccounts.over(dataSource);
  try {
    return await seedIn(dataSource, accounts);
  } finally {
    await accounts.close();
  }
}

async function seedIn(dataSource: DataSource, accounts: OperatorAccounts): Promise<SeedResult> {
  const system = RequestContext.system();
  return new TransactionRunner(dataSource).run(async ({ manager: m }) => {
    let createdAny = false;
    const track = ([id, created]: [number, boolean]): number => {
      createdAny ||= created;
      return id;
    };

    const siteId = track(
      await ensure(
        m,
        ['SELECT id FROM site WHERE name = $1', [DEMO_SITE.name]],
        ['INSERT INTO site (name) VALUES ($1) RETURNING id', [DEMO_SITE.name]],
      ),
    );
    for (const l of DEMO_SITE.languages) {
      await m.query(
        'INSERT INTO site_language (site_id, language_id, iso_code, title) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [siteId, l.languageId, l.isoCode, l.title],
      );
    }

    const pageIds = new Map<string, number>();
    const rootlines = new Map<string, number[]>();
    let sorting = 0;
    for (const p of DEMO_PAGES) {
      const parentId = p.parent ? (pageIds.get(p.parent) ?? null) : null;
      const id = track(
        await ensure(
          m,
          ['SELECT id FROM page WHERE site_id = $1 AND slug = $2', [siteId, p.slug]],
          [
            'INSERT INTO page (parent_id, site_id, slug, sorting) VALUES ($1, $2, $3, $4) RETURNING id',
            [parentId, siteId, p.slug, sorting++],
          ],
        ),
      );
      const rootline = [...(p.parent ? (rootlines.get(p.parent) ?? []) : []), id];
      pageIds.set(p.key, id);
      rootlines.set(p.key, rootline);
      await m.query("UPDATE page SET rootline = $2 WHERE id = $1 AND rootline = '{}'", [id, rootline]);
      for (const [languageId, t] of [
        [0, p.en],
        [1, p.de],
      ] as const) {
        await m.query(
          `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title)
           VALUES ($1, $2, 0, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [id, languageId, t.title, t.body, t.seoTitle],
        );
      }
    }
    const orphanId = track(
      await ensure(
        m,
        ['SELECT id FROM page WHERE site_id IS NULL AND slug = $1', [ORPHAN_PAGE.slug]],
        [
          'INSERT INTO page (parent_id, site_id, slug, sorting) VALUES (NULL, NULL, $1, 0) RETURNING id',
          [ORPHAN_PAGE.slug],
        ],
      ),
    );
    pageIds.set(ORPHAN_PAGE.key, orphanId);
    await m.query("UPDATE page SET rootline = $2 WHERE id = $1 AND rootline = '{}'", [orphanId, [orphanId]]);
    await m.query(
      `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title)
       VALUES ($1, 0, 0, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [orphanId, ORPHAN_PAGE.en.title, ORPHAN_PAGE.en.body, ORPHAN_PAGE.en.seoTitle],
    );

    const pageList = (keys: readonly string[]): number[] => keys.map((k) => pageIds.get(k) ?? 0);
    const groupIds = new Map<string, number>();
    for (const g of DEMO_GROUPS) {
      groupIds.set(
        g.name,
        track(
          await ensure(
            m,
            ['SELECT id FROM access_group WHERE name = $1', [g.name]],
            [
              `INSERT INTO access_group (name, grants, show_page_ids, edit_page_ids, edit_language_ids)
             VALUES ($1, $2, $3, $4, $5) RETURNING id`,
              [g.name, g.grants, pageList(g.show), pageList(g.edit), g.languages],
            ],
          ),
        ),
      );
    }
    // why through the auth module's use case: a demo user is created as any other (its checks,
    // its memberships, its audit record), not by a second way of writing users.
    for (const u of DEMO_USERS) {
      if (await accounts.users.findByUsername(system, u.username)) continue;
      const groups = u.groups.map((g) => groupIds.get(g) ?? 0);
      const { username, displayName, locale, isAdmin } = u;
      await accounts.users.create(system, { username, displayName, locale, isAdmin, groupIds: groups });
      createdAny = true;
    }

    const skillIds = new Map<string, number>();
    for (const s of DEMO_SKILLS) {
      skillIds.set(
        s.identifier,
        track(
          await ensure(
            m,
            ['SELECT id FROM skill WHERE identifier = $1', [s.identifier]],
            [
              `INSERT INTO skill (identifier, name, description, body, is_process, enabled)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
              [s.identifier, s.name, s.description, s.body, s.isProcess, s.enabled],
            ],
          ),
        ),
      );
      // why: runs use approved versions only; a demo skill starts with its approved version 1.
      await m.query(
        `INSERT INTO skill_version (skill_id, version, name, description, body, is_process, state, approved_at)
         SELECT $1, 1, $2, $3, $4, $5, 'APPROVED', now()
          WHERE NOT EXISTS (SELECT 1 FROM skill_version WHERE skill_id = $1)`,
        [skillIds.get(s.identifier), s.name, s.description, s.body, s.isProcess],
      );
    }
    const configurationIds = new Map<string, number>();
    for (const c of DEMO_CONFIGURATIONS) {
      const id = track(
        await ensure(
          m,
          ['SELECT id FROM configuration WHERE identifier = $1', [c.identifier]],
          [
            `INSERT INTO configuration (identifier, name, provider, model, provider_options, system_prompt,
             is_active, require_second_approver, max_iterations, privacy_level)
           VALUES ($1, $2, 'scripted', 'scripted', $3, $4, $5, $6, 5, $7) RETURNING id`,
            [
              c.identifier,
              c.name,
              JSON.stringify({ rounds: c.rounds }),
              'You are an editorial assistant for the Demo site.',
              c.isActive,
              c.requireSecondApprover,
              c.privacyLevel,
            ],
          ],
        ),
      );
      configurationIds.set(c.identifier, id);
      for (const s of c.skills) {
        await m.query(
          'INSERT INTO configuration_skill (configuration_id, skill_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [id, skillIds.get(s)],
        );
      }
    }
    for (const t of DEMO_TASKS) {
      const id = track(
        await ensure(
          m,
          ['SELECT id FROM task WHERE identifier = $1', [t.identifier]],
          [
            'INSERT INTO task (identifier, name, configuration_id, priority) VALUES ($1, $2, $3, $4) RETURNING id',
            [t.identifier, t.name, configurationIds.get(t.configuration), t.priority],
          ],
        ),
      );
      for (const g of t.groups) {
        await m.query('INSERT INTO task_group (task_id, group_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          id,
          groupIds.get(g),
        ]);
      }
    }
    return { created: createdAny };
  });
}
