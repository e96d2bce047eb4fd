import { DataSource } from 'typeorm';
import type { AppConfig } from '../../../src/config/app-config';
import { AuditTrail } from '../../../src/modules/auth/application/audit-trail';
import { UsersService } from '../../../src/modules/auth/application/users.service';
import { AuditRepository } from '../../../src/modules/auth/persistence/audit.repository';
import { UsersRepository } from '../../../src/modules/auth/persistence/users.repository';
import { ConfigurationsAdminService } from '../../../src/modules/configurations/application/configurations-admin.service';
import { ConfigurationsService } from '../../../src/modules/configurations/application/configurations.service';
import { ConfigurationUser } from '../../../src/modules/configurations/core/configuration-access.policy';
import { ConfigurationsRepository } from '../../../src/modules/configurations/persistence/configurations.repository';
import { SkillCatalogue } from '../../../src/modules/skills/application/skill-catalogue';
import { SkillsService } from '../../../src/modules/skills/application/skills.service';
import { SkillsRepository } from '../../../src/modules/skills/persistence/skills.repository';
import { SkillVersionsRepository } from '../../../src/modules/skills/persistence/skill-versions.repository';
import { RequestContext } from '../../../src/platform/auth/request-context';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';

export interface Services {
  readonly configurations: ConfigurationsService;
  readonly admin: ConfigurationsAdminService;
  readonly skills: SkillsService;
  readonly catalogue: SkillCatalogue;
  /** A request context of the demo admin (only `isAdmin` matters to these services). */
  readonly adminCtx: RequestContext;
}

/** The configurations and skills services wired by hand on one data source. */
export function wireServices(ds: DataSource, maxIterationsCeiling = 20): Services {
  const config = { maxIterationsCeiling } as AppConfig;
  const transactions = new TransactionRunner(ds);
  const skillsRepository = new SkillsRepository(ds);
  const skills = new SkillsService(skillsRepository, new SkillVersionsRepository(ds), transactions);
  const catalogue = new SkillCatalogue(skillsRepository);
  const repository = new ConfigurationsRepository(ds);
  const configurations = new ConfigurationsService(repository, skills, catalogue, config);
  const users = new UsersService(
    transactions,
    new UsersRepository(ds),
    new AuditTrail(new AuditRepository(ds), transactions),
  );
  const admin = new ConfigurationsAdminService(
    repository,
    configurations,
    transactions,
    users,
    skills,
    config,
  );
  const adminCtx = new RequestContext({ isAdmin: true, groups: [] } as never);
  return { configurations, admin, skills, catalogue, adminCtx };
}

/** The demo users as the configuration rules see them (admin flag and group ids). */
export async function demoUsers(ds: DataSource): Promise<Record<string, ConfigurationUser>> {
  const rows: Array<{ username: string; is_admin: boolean; group_ids: number[] }> = await ds.query(
    `SELECT u.username, u.is_admin, coalesce(array_agg(m.group_id) FILTER (WHERE m.group_id IS NOT NULL), '{}') AS group_ids
       FROM app_user u LEFT JOIN group_member m ON m.user_id = u.id GROUP BY u.id`,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.username,
      { isAdmin: r.is_admin, groups: r.group_ids.map((id) => ({ id: Number(id) })) },
    ]),
  );
}

export async function groupIdOf(ds: DataSource, name: string): Promise<number> {
  const rows: Array<{ id: number }> = await ds.query('SELECT id FROM access_group WHERE name = $1', [name]);
  const id = rows[0]?.id;
  if (id === undefined) throw new Error(`no group ${name}`);
  return id;
}
