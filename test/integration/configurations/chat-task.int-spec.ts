import { ConfigurationUser } from '../../../src/modules/configurations/core/configuration-access.policy';
import { useTestDatabase } from '../../support/test-database';
import { demoUsers, groupIdOf, Services, wireServices } from './services';

describe("the chat's Task and skill catalogue on a real database", () => {
  const suite = useTestDatabase();
  let s: Services;
  let users: Record<string, ConfigurationUser>;

  beforeAll(async () => {
    s = wireServices(suite.ds);
    users = await demoUsers(suite.ds);
  });

  it('gives erin (restricted) the mapped four-eyes-chat Task and alice the default Task', async () => {
    const erin = await s.configurations.taskForUser(users.erin!);
    expect(erin?.identifier).toBe('four-eyes-chat');
    expect(erin?.configuration.identifier).toBe('demo-four-eyes');
    expect(erin?.configuration.requireSecondApprover).toBe(true);
    const alice = await s.configurations.taskForUser(users.alice!);
    expect(alice?.identifier).toBe('default');
    expect(alice?.configuration.identifier).toBe('demo-editor');
    expect((await s.configurations.taskForUser(users.admin!))?.identifier).toBe('default');
  });

  it('builds the catalogue from the enabled configuration skills (legacy-skill is disabled)', async () => {
    const setup = await s.configurations.chatSetupFor(users.alice!);
    expect(setup?.catalogue.map((e) => [e.identifier, e.isProcess])).toEqual([
      ['seo-process', true],
      ['tone-of-voice', false],
    ]);
  });

  it('adds the Task skills, deduplicated by identifier, and never a disabled one', async () => {
    await s.skills.upsertSkill(s.adminCtx, {
      identifier: 'int-task-skill',
      name: '',
      description: 'Only on the Task',
      body: 'b',
      isProcess: false,
      enabled: true,
    });
    await s.admin.upsertTask(s.adminCtx, {
      identifier: 'four-eyes-chat',
      name: 'Four-eyes chat',
      configurationIdentifier: 'demo-four-eyes',
      skillIdentifiers: ['tone-of-voice', 'int-task-skill', 'legacy-skill'],
      groupIds: [String(await groupIdOf(suite.ds, 'restricted'))],
      priority: 10,
    });
    const setup = await s.configurations.chatSetupFor(users.erin!);
    expect(setup?.task.skills.map((x) => x.identifier)).toEqual([
      'int-task-skill',
      'legacy-skill',
      'tone-of-voice',
    ]);
    // a new skill is offered once a version of it is approved
    expect(setup!.catalogue.map((e) => e.identifier)).toEqual(['seo-process', 'tone-of-voice']);
    await suite.ds.query(
      `UPDATE skill_version SET state = 'APPROVED', approved_at = now()
        WHERE skill_id = (SELECT id FROM skill WHERE identifier = 'int-task-skill')`,
    );
    const catalogue = (await s.configurations.chatSetupFor(users.erin!))!.catalogue;
    expect(catalogue.map((e) => e.identifier)).toEqual(['seo-process', 'tone-of-voice', 'int-task-skill']);
    const tone: Array<{ id: number }> = await suite.ds.query(
      "SELECT id FROM skill WHERE identifier = 'tone-of-voice'",
    );
    expect(catalogue.find((e) => e.identifier === 'tone-of-voice')?.skillId).toBe(tone[0]!.id);
    // a nameless skill is listed under its identifier
    expect(catalogue.find((e) => e.identifier === 'int-task-skill')?.name).toBe('int-task-skill');
  });

  it('drops a skill from the catalogue at the next read once it is disabled', async () => {
    await s.skills.upsertSkill(s.adminCtx, {
      identifier: 'int-task-skill',
      name: 'Task skill',
      description: '',
      body: 'b',
      isProcess: false,
      enabled: false,
    });
    const setup = await s.configurations.chatSetupFor(users.erin!);
    expect(setup?.catalogue.map((e) => e.identifier)).toEqual(['seo-process', 'tone-of-voice']);
  });

  it('lets the highest priority win among several mapped Tasks, then the lowest Task id', async () => {
    const editors = String(await groupIdOf(suite.ds, 'editors'));
    const approvers = String(await groupIdOf(suite.ds, 'approvers'));
    const base = { configurationIdentifier: 'demo-question', skillIdentifiers: [] };
    await s.admin.upsertTask(s.adminCtx, {
      ...base,
      identifier: 'int-low',
      name: 'Low',
      groupIds: [editors],
      priority: 1,
    });
    await s.admin.upsertTask(s.adminCtx, {
      ...base,
      identifier: 'int-high-a',
      name: 'A',
      groupIds: [approvers],
      priority: 5,
    });
    await s.admin.upsertTask(s.adminCtx, {
      ...base,
      identifier: 'int-high-b',
      name: 'B',
      groupIds: [editors],
      priority: 5,
    });
    // carol is in editors and approvers: two Tasks at priority 5, the older (lower id) wins
    expect((await s.configurations.taskForUser(users.carol!))?.identifier).toBe('int-high-a');
    expect((await s.configurations.taskForUser(users.alice!))?.identifier).toBe('int-high-b');
    expect((await s.configurations.taskForUser(users.dave!))?.identifier).toBe('default');
  });

  it('answers null when nothing matches and there is no default Task', async () => {
    await suite.ds.query("UPDATE task SET identifier = 'not-default' WHERE identifier = 'default'");
    try {
      expect(await s.configurations.taskForUser(users.dave!)).toBeNull();
      expect(await s.configurations.chatSetupFor(users.dave!)).toBeNull();
    } finally {
      await suite.ds.query("UPDATE task SET identifier = 'default' WHERE identifier = 'not-default'");
    }
  });
});
