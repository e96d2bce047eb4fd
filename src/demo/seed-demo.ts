import { DataSource } from 'typeorm';
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
import { DemoRows, type Ensured } from './persistence/demo-rows';

export interface SeedResult {
  /** True when this call created the demo data (first load). */
  readonly created: boolean;
}

/**
 * Loads the demo data set (docs/demo-data.md), all in one transaction. Idempotent: every record
 * is looked up by its natural key first and only created when missing; existing records are
 * left as they are, so a second run changes nothing. The users are made by the auth module's
 * own use case (as `user create` makes them); the other rows are fixtures (`DemoRows`).
 */
export async function seedDemo(dataSource: DataSource): Promise<SeedResult> {
  const accounts = OperatorAccounts.over(dataSource);
  try {
    return await new TransactionRunner(dataSource).run(() => seedIn(new DemoRows(dataSource), accounts));
  } finally {
    await accounts.close();
  }
}

async function seedIn(rows: DemoRows, accounts: OperatorAccounts): Promise<SeedResult> {
  let createdAny = false;
  const track = ([id, created]: Ensured): number => {
    createdAny ||= created;
    return id;
  };

  const siteId = track(await rows.ensureSite(DEMO_SITE.name));
  for (const l of DEMO_SITE.languages) await rows.addSiteLanguage(siteId, l.languageId, l.isoCode, l.title);

  const pageIds = new Map<string, number>();
  const rootlines = new Map<string, number[]>();
  let sorting = 0;
  for (const p of DEMO_PAGES) {
    const parentId = p.parent ? (pageIds.get(p.parent) ?? null) : null;
    const id = track(await rows.ensurePage(siteId, parentId, p.slug, sorting++));
    const rootline = [...(p.parent ? (rootlines.get(p.parent) ?? []) : []), id];
    pageIds.set(p.key, id);
    rootlines.set(p.key, rootline);
    await rows.setRootline(id, rootline);
    await rows.addPageText(id, 0, p.en);
    await rows.addPageText(id, 1, p.de);
  }
  const orphanId = track(await rows.ensurePage(null, null, ORPHAN_PAGE.slug, 0));
  pageIds.set(ORPHAN_PAGE.key, orphanId);
  await rows.setRootline(orphanId, [orphanId]);
  await rows.addPageText(orphanId, 0, ORPHAN_PAGE.en);

  const pageList = (keys: readonly string[]): number[] => keys.map((k) => pageIds.get(k) ?? 0);
  const groupIds = new Map<string, number>();
  for (const g of DEMO_GROUPS) {
    groupIds.set(g.name, track(await rows.ensureGroup(g, pageList(g.show), pageList(g.edit))));
  }
  const groupList = (names: readonly string[]): number[] => names.map((n) => groupIds.get(n) ?? 0);

  // why through the auth module's use case: a demo user is created as any other (its checks,
  // its memberships, its audit record), not by a second way of writing users.
  const system = RequestContext.system();
  for (const { username, displayName, locale, isAdmin, groups } of DEMO_USERS) {
    if (await accounts.users.findByUsername(system, username)) continue;
    await accounts.users.create(system, {
      username,
      displayName,
      locale,
      isAdmin,
      groupIds: groupList(groups),
    });
    createdAny = true;
  }

  const skillIds = new Map<string, number>();
  for (const s of DEMO_SKILLS) skillIds.set(s.identifier, track(await rows.ensureSkill(s)));
  const configurationIds = new Map<string, number>();
  for (const c of DEMO_CONFIGURATIONS) {
    const skills = c.skills.map((s) => skillIds.get(s) ?? 0);
    configurationIds.set(c.identifier, track(await rows.ensureConfiguration(c, skills)));
  }
  for (const t of DEMO_TASKS) {
    track(await rows.ensureTask(t, configurationIds.get(t.configuration) ?? 0, groupList(t.groups)));
  }
  return { created: createdAny };
}
