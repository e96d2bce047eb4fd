import { DataSource } from 'typeorm';
import { DEFAULT_PROVIDER_KEY_PREFIX } from '../agent';
import { OperatorAccounts } from '../modules/auth';
import {
  DEFAULT_MAX_ITERATIONS_CEILING,
  OperatorConfigurations,
  type ConfigurationSettingsLimits,
} from '../modules/configurations';
import { RequestContext } from '../platform/auth/request-context';
import { TransactionRunner } from '../platform/database/transaction-runner';
import {
  DEMO_CONFIGURATIONS,
  DEMO_GROUPS,
  DEMO_MAX_ITERATIONS,
  DEMO_PAGES,
  DEMO_SITE,
  DEMO_SKILLS,
  DEMO_SYSTEM_PROMPT,
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
 * What the demo's configuration upserts are checked against. why fixed: the demo's
 * configurations use the scripted provider, which reaches no endpoint and reads no key, so they
 * need no provider access; their 5 rounds are under any ceiling, and a lower ceiling set later
 * still clamps them at run start.
 */
const DEMO_LIMITS: ConfigurationSettingsLimits = {
  providerAccess: { keyEnvPrefix: DEFAULT_PROVIDER_KEY_PREFIX, keyEnvNames: [], baseUrls: [] },
  maxIterationsCeiling: DEFAULT_MAX_ITERATIONS_CEILING,
};

/** The modules' own use cases the seed writes through, as the system. */
interface SeedUseCases {
  readonly accounts: OperatorAccounts;
  readonly configurations: OperatorConfigurations;
}

/**
 * Loads the demo data set (docs/demo-data.md), all in one transaction. Idempotent: every record
 * is looked up by its natural key first and only created when missing; existing records are
 * left as they are, so a second run changes nothing. Users, configurations and Tasks are made by
 * their modules' own use cases (as `user create` and the admin API make them); the rows no use
 * case makes are fixtures (`DemoRows`).
 */
export async function seedDemo(dataSource: DataSource): Promise<SeedResult> {
  const accounts = OperatorAccounts.over(dataSource);
  const configurations = OperatorConfigurations.over(dataSource, accounts.users, DEMO_LIMITS);
  try {
    return await new TransactionRunner(dataSource).run(() =>
      seedIn(new DemoRows(dataSource), { accounts, configurations }),
    );
  } finally {
    await accounts.close();
  }
}

async function seedIn(rows: DemoRows, useCases: SeedUseCases): Promise<SeedResult> {
  const created = new SeedProgress();
  const pageIds = await seedPages(rows, created);
  const groupIds = await seedGroups(rows, created, pageIds);
  await seedUsers(useCases.accounts, created, groupIds);
  for (const s of DEMO_SKILLS) created.track(await rows.ensureSkill(s));
  await seedConfigurations(useCases.configurations, created, groupIds);
  return { created: created.any };
}

/** One seed's actor, and whether any of its steps created a record. */
class SeedProgress {
  any = false;
  /** Who the seed acts as: the system (its audit records say `via: cli`, outside the API). */
  readonly actor = RequestContext.system();

  track([id, created]: Ensured): number {
    this.any ||= created;
    return id;
  }
}

/** The site, its pages with their rootlines and texts, and the orphan page; ids by page key. */
async function seedPages(rows: DemoRows, created: SeedProgress): Promise<Map<string, number>> {
  const siteId = created.track(await rows.ensureSite(DEMO_SITE.name));
  for (const l of DEMO_SITE.languages) await rows.addSiteLanguage(siteId, l.languageId, l.isoCode, l.title);

  const pageIds = new Map<string, number>();
  const rootlines = new Map<string, number[]>();
  let sorting = 0;
  for (const p of DEMO_PAGES) {
    const parentId = p.parent ? (pageIds.get(p.parent) ?? null) : null;
    const id = created.track(await rows.ensurePage(siteId, parentId, p.slug, sorting++));
    const rootline = [...(p.parent ? (rootlines.get(p.parent) ?? []) : []), id];
    pageIds.set(p.key, id);
    rootlines.set(p.key, rootline);
    await rows.setRootline(id, rootline);
    await rows.addPageText(id, 0, p.en);
    await rows.addPageText(id, 1, p.de);
  }
  const orphanId = created.track(await rows.ensurePage(null, null, ORPHAN_PAGE.slug, 0));
  pageIds.set(ORPHAN_PAGE.key, orphanId);
  await rows.setRootline(orphanId, [orphanId]);
  await rows.addPageText(orphanId, 0, ORPHAN_PAGE.en);
  return pageIds;
}

/** The access groups with the pages they show and edit; ids by group name. */
async function seedGroups(
  rows: DemoRows,
  created: SeedProgress,
  pageIds: ReadonlyMap<string, number>,
): Promise<Map<string, number>> {
  const pageList = (keys: readonly string[]): number[] => keys.map((k) => pageIds.get(k) ?? 0);
  const groupIds = new Map<string, number>();
  for (const g of DEMO_GROUPS) {
    groupIds.set(g.name, created.track(await rows.ensureGroup(g, pageList(g.show), pageList(g.edit))));
  }
  return groupIds;
}

/**
 * The demo users. why through the auth module's use case: a demo user is created as any other
 * (its checks, its memberships, its audit record), not by a second way of writing users.
 */
async function seedUsers(
  accounts: OperatorAccounts,
  created: SeedProgress,
  groupIds: ReadonlyMap<string, number>,
): Promise<void> {
  for (const { username, displayName, locale, isAdmin, groups } of DEMO_USERS) {
    if (await accounts.users.findByUsername(created.actor, username)) continue;
    await accounts.users.create(created.actor, {
      username,
      displayName,
      locale,
      isAdmin,
      groupIds: groups.map((n) => groupIds.get(n) ?? 0),
    });
    created.any = true;
  }
}

/**
 * The configurations and Tasks. why through the configurations module's upserts: the same
 * checks and defaults as the admin API's, where SQL of the demo's own would be a second way of
 * writing a configuration. The skills they name exist by now.
 */
async function seedConfigurations(
  configurations: OperatorConfigurations,
  created: SeedProgress,
  groupIds: ReadonlyMap<string, number>,
): Promise<void> {
  for (const c of DEMO_CONFIGURATIONS) {
    if (await configurations.hasConfiguration(c.identifier)) continue;
    await configurations.admin.upsertConfiguration(created.actor, {
      identifier: c.identifier,
      name: c.name,
      provider: 'scripted',
      model: 'scripted',
      providerOptions: { rounds: c.rounds },
      systemPrompt: DEMO_SYSTEM_PROMPT,
      isActive: c.isActive,
      requireSecondApprover: c.requireSecondApprover,
      maxIterations: DEMO_MAX_ITERATIONS,
      privacyLevel: c.privacyLevel,
      skillIdentifiers: c.skills,
    });
    created.any = true;
  }
  for (const t of DEMO_TASKS) {
    if (await configurations.hasTask(t.identifier)) continue;
    await configurations.admin.upsertTask(created.actor, {
      identifier: t.identifier,
      name: t.name,
      configurationIdentifier: t.configuration,
      groupIds: t.groups.map((n) => String(groupIds.get(n) ?? 0)),
      priority: t.priority,
    });
    created.any = true;
  }
}
