import { seedDemo } from '../../../src/demo/seed-demo';
import { useTestDatabase } from '../../support/test-database';
import { count, snapshot } from './house-support';

// The test database comes migrated and seeded once (test/support/global-setup.ts), so every
// seedDemo() here is at least the second.
describe('seedDemo', () => {
  const suite = useTestDatabase({ quietLogs: true });

  it('loaded the demo data set of demo-data.md', async () => {
    const counts: Record<string, number> = {};
    for (const t of [
      'app_user',
      'access_group',
      'group_member',
      'site',
      'site_language',
      'page',
      'page_text',
      'skill',
      'configuration',
      'configuration_skill',
      'task',
      'task_group',
    ]) {
      counts[t] = await count(suite.ds, t);
    }
    expect(counts).toEqual({
      app_user: 6,
      access_group: 4,
      group_member: 6,
      site: 1,
      site_language: 3,
      page: 7,
      page_text: 13,
      skill: 3,
      configuration: 4,
      configuration_skill: 5,
      task: 2,
      task_group: 1,
    });
    const pages: { slug: string; rootline: number[]; id: number }[] = await suite.ds.query(
      'SELECT id, slug, rootline FROM page ORDER BY id',
    );
    const id = (slug: string): number => pages.find((p) => p.slug === slug)!.id;
    expect(pages.find((p) => p.slug === '/products/widget')!.rootline).toEqual([
      id('/'),
      id('/products'),
      id('/products/widget'),
    ]);
    const [restricted] = await suite.ds.query(
      "SELECT show_page_ids, edit_page_ids, edit_language_ids FROM access_group WHERE name = 'restricted'",
    );
    expect(restricted).toEqual({ show_page_ids: [id('/blog')], edit_page_ids: [], edit_language_ids: [0] });
    // the users and their tokens were made by the auth module's use cases, each on record
    const audited: Array<{ action: string; via: string; n: number }> = await suite.ds.query(
      'SELECT action, via, count(*)::int AS n FROM audit_event GROUP BY action, via ORDER BY action',
    );
    expect(audited).toEqual([
      { action: 'TOKEN_CREATED', via: 'cli', n: 6 },
      { action: 'USER_CREATED', via: 'cli', n: 6 },
    ]);
  });

  it('changes nothing when run again: every table keeps its rows and content', async () => {
    const before = await snapshot(suite.ds);
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(12);
    expect(await seedDemo(suite.ds)).toEqual({ created: false });
    expect(await snapshot(suite.ds)).toEqual(before);
    expect(await seedDemo(suite.ds)).toEqual({ created: false });
    expect(await snapshot(suite.ds)).toEqual(before);
  });

  it('recreates only what is missing, leaving every other table as it was', async () => {
    const before = await snapshot(suite.ds);
    await suite.ds.query("DELETE FROM app_user WHERE username = 'erin'");
    expect(await count(suite.ds, 'app_user')).toBe(5);

    expect(await seedDemo(suite.ds)).toEqual({ created: true });

    const after = await snapshot(suite.ds);
    const changed = Object.keys(before).filter((t) => before[t]!.checksum !== after[t]!.checksum);
    // erin comes back under a new id, with her membership and the record of her creation; her
    // demo token went with her.
    expect(changed.sort()).toEqual(['api_token', 'app_user', 'audit_event', 'group_member']);
    expect(after.audit_event!.rows).toBe(before.audit_event!.rows + 1);
    expect(after.app_user!.rows).toBe(6);
    expect(after.group_member!.rows).toBe(before.group_member!.rows);
    const groups: { name: string }[] = await suite.ds.query(
      `SELECT g.name FROM group_member m JOIN app_user u ON u.id = m.user_id JOIN access_group g ON g.id = m.group_id
       WHERE u.username = 'erin'`,
    );
    expect(groups).toEqual([{ name: 'restricted' }]);
    expect(await seedDemo(suite.ds)).toEqual({ created: false });
    expect(await snapshot(suite.ds)).toEqual(after);
  });

  it("recreates a missing configuration and Task as they were, with the upserts' defaults", async () => {
    const columns = `identifier, name, provider, model, provider_options, system_prompt, is_active,
      require_second_approver, max_iterations, privacy_level, allowed_group_ids, deleted_at,
      approval_timeout_seconds, on_approval_timeout, required_approvals, max_tokens_per_run,
      max_tokens_per_user_per_day`;
    const configurationOf = (identifier: string): Promise<unknown[]> =>
      suite.ds.query(
        `SELECT ${columns}, ARRAY(SELECT s.identifier FROM configuration_skill cs JOIN skill s ON s.id = cs.skill_id
           WHERE cs.configuration_id = c.id ORDER BY s.identifier) AS skills
         FROM configuration c WHERE identifier = $1`,
        [identifier],
      );
    const taskOf = (identifier: string): Promise<unknown[]> =>
      suite.ds.query(
        `SELECT t.identifier, t.name, t.priority, c.identifier AS configuration,
           ARRAY(SELECT g.name FROM task_group tg JOIN access_group g ON g.id = tg.group_id
             WHERE tg.task_id = t.id ORDER BY g.name) AS groups
         FROM task t JOIN configuration c ON c.id = t.configuration_id WHERE t.identifier = $1`,
        [identifier],
      );
    const fourEyes = await configurationOf('demo-four-eyes');
    const chat = await taskOf('four-eyes-chat');
    expect(fourEyes).toHaveLength(1);
    expect(chat).toEqual([
      {
        identifier: 'four-eyes-chat',
        name: 'Four-eyes chat',
        priority: 10,
        configuration: 'demo-four-eyes',
        groups: ['restricted'],
      },
    ]);
    await suite.ds.query("DELETE FROM task WHERE identifier = 'four-eyes-chat'");
    await suite.ds.query("DELETE FROM configuration WHERE identifier = 'demo-four-eyes'");

    expect(await seedDemo(suite.ds)).toEqual({ created: true });

    // the upserts' defaults (no deadline, DENY, one approval, no caps) are what the fixtures held
    expect(await configurationOf('demo-four-eyes')).toEqual(fourEyes);
    expect(await taskOf('four-eyes-chat')).toEqual(chat);
    expect(await count(suite.ds, 'configuration')).toBe(4);
    expect(await count(suite.ds, 'task')).toBe(2);
  });
});
