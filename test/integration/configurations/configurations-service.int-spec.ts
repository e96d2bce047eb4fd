import { ConfigurationUser } from '../../../src/modules/configurations/core/configuration-access.policy';
import { Refusal } from '../../../src/common/refusal';
import { itOnPostgres, useTestDatabase } from '../../support/test-database';
import { demoUsers, groupIdOf, Services, wireServices } from './services';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof Refusal) return e.code;
    throw e;
  }
  return 'NO_REFUSAL';
}

describe('ConfigurationsService on a real database', () => {
  const suite = useTestDatabase();
  let s: Services;
  let users: Record<string, ConfigurationUser>;
  let restrictedId: number;
  const script = { rounds: [{ text: 'hi' }] };

  beforeAll(async () => {
    s = wireServices(suite.ds, 12);
    users = await demoUsers(suite.ds);
    const created = await s.admin.upsertConfiguration(s.adminCtx, {
      identifier: 'int-approvers',
      name: 'Approvers only',
      provider: 'scripted',
      model: 'scripted',
      providerOptions: script,
      maxIterations: 50,
      allowedGroupIds: [String(await groupIdOf(suite.ds, 'approvers'))],
      skillIdentifiers: ['seo-process'],
    });
    restrictedId = created.id;
  });

  it('stores maxIterations clamped to the configured ceiling', async () => {
    const rows: Array<{ max_iterations: number }> = await suite.ds.query(
      'SELECT max_iterations FROM configuration WHERE id = $1',
      [restrictedId],
    );
    expect(rows[0]!.max_iterations).toBe(12);
  });

  it('finds a configuration for a member of its groups and NOT_FOUND for anyone outside them', async () => {
    const forBob = await s.configurations.findForUse(users.bob!, restrictedId);
    expect(forBob.identifier).toBe('int-approvers');
    expect(forBob.skills.map((x) => x.identifier)).toEqual(['seo-process']);
    expect(forBob.providerOptions).toEqual(script);
    expect((await s.configurations.findForUse(users.admin!, String(restrictedId))).id).toBe(restrictedId);
    expect(await codeOf(s.configurations.findForUse(users.alice!, restrictedId))).toBe('NOT_FOUND');
    expect(await codeOf(s.configurations.findForUse(users.alice!, 999_999))).toBe('NOT_FOUND');
    expect(await codeOf(s.configurations.findForUse(users.alice!, 'x1'))).toBe('BAD_USER_INPUT');
  });

  it('returns an inactive configuration for use (the caller refuses CONFIGURATION_INACTIVE)', async () => {
    const rows: Array<{ id: number }> = await suite.ds.query(
      "SELECT id FROM configuration WHERE identifier = 'demo-inactive'",
    );
    const inactive = await s.configurations.findForUse(users.alice!, rows[0]!.id);
    expect(inactive.isActive).toBe(false);
  });

  it('hides a deleted configuration from use and lists, but getById still reads it', async () => {
    await suite.ds.query('UPDATE configuration SET deleted_at = now() WHERE id = $1', [restrictedId]);
    expect(await codeOf(s.configurations.findForUse(users.bob!, restrictedId))).toBe('NOT_FOUND');
    const gone = await s.configurations.getById(restrictedId);
    expect(gone.deletedAt).toBeInstanceOf(Date);
    const many = await s.configurations.getByIds([restrictedId, restrictedId, 999_999]);
    expect([...many.keys()]).toEqual([restrictedId]);
    // read together or alone, the same row: every column mapped alike (options, groups, dates)
    expect(many.get(restrictedId)).toEqual(gone);
    expect(await codeOf(s.configurations.getById(999_999))).toBe('NOT_FOUND');
    // an upsert of the same identifier brings it back, same id
    const back = await s.admin.upsertConfiguration(s.adminCtx, {
      identifier: 'int-approvers',
      name: 'Back',
      provider: 'scripted',
      model: 'scripted',
      providerOptions: script,
    });
    expect(back).toMatchObject({ id: restrictedId, deletedAt: null, allowedGroupIds: [], skills: [] });
  });

  it('clamps a run request to the ceiling and refuses one below 1', async () => {
    const c = await s.configurations.getById(restrictedId);
    expect(s.configurations.effectiveMaxIterations(c, 100)).toBe(12);
    expect(s.configurations.effectiveMaxIterations(c, null)).toBe(c.maxIterations);
    expect(() => s.configurations.effectiveMaxIterations(c, 0)).toThrow(Refusal);
  });

  it('refuses a Task naming a deleted configuration and writes nothing', async () => {
    await suite.ds.query("UPDATE configuration SET deleted_at = now() WHERE identifier = 'demo-question'");
    const before: Array<{ n: number }> = await suite.ds.query('SELECT count(*)::int AS n FROM task');
    const code = await codeOf(
      s.admin.upsertTask(s.adminCtx, {
        identifier: 'int-gone',
        name: 'G',
        configurationIdentifier: 'demo-question',
      }),
    );
    expect(code).toBe('BAD_USER_INPUT');
    const after: Array<{ n: number }> = await suite.ds.query('SELECT count(*)::int AS n FROM task');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  itOnPostgres('keeps one row when the same identifier is upserted concurrently', async () => {
    const input = (i: number) => ({
      identifier: 'int-race',
      name: `Race ${i}`,
      provider: 'scripted',
      model: 'scripted',
      providerOptions: script,
      skillIdentifiers: ['tone-of-voice', 'seo-process'],
    });
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        [0, 1, 2, 3].map((i) => s.admin.upsertConfiguration(s.adminCtx, input(i))),
      );
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
    }
    const rows: Array<{ n: number }> = await suite.ds.query(
      "SELECT count(*)::int AS n FROM configuration WHERE identifier = 'int-race'",
    );
    expect(rows[0]!.n).toBe(1);
    const links: Array<{ n: number }> = await suite.ds.query(
      `SELECT count(*)::int AS n FROM configuration_skill cs JOIN configuration c ON c.id = cs.configuration_id
        WHERE c.identifier = 'int-race'`,
    );
    expect(links[0]!.n).toBe(2);
  });
});
