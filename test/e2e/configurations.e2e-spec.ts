import { startRun, waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import type { Configuration, Skill } from '../support/generated/schema';

const CONFIGURATION_FIELDS = `id identifier name isActive requireSecondApprover maxIterations privacyLevel provider model
  skills { id identifier name description isProcess enabled }`;

const UPSERT_CONFIGURATION = `mutation ($input: ConfigurationInput!) {
  upsertConfiguration(input: $input) { ${CONFIGURATION_FIELDS} }
}`;

type ConfigurationResult = Omit<Configuration, '__typename' | 'skills'> & {
  skills: Array<Pick<Skill, 'identifier' | 'enabled' | 'isProcess'>>;
};

const SCRIPT = { rounds: [{ text: 'hello', chunks: 2, chunkDelayMs: 1 }] };

describe('configurations, skills and Tasks over GraphQL', () => {
  const { t } = useTestApp();
  const count = async (table: string): Promise<number> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`);
    return rows[0]!.n;
  };
  const counts = async () => ({
    configuration: await count('configuration'),
    configurationSkill: await count('configuration_skill'),
    skill: await count('skill'),
    task: await count('task'),
    taskSkill: await count('task_skill'),
    taskGroup: await count('task_group'),
  });
  const groupId = async (name: string): Promise<string> => {
    const rows: Array<{ id: number }> = await t.dataSource.query(
      'SELECT id FROM access_group WHERE name = $1',
      [name],
    );
    return String(rows[0]!.id);
  };
  const row = async (identifier: string) => {
    const rows: Array<Record<string, unknown>> = await t.dataSource.query(
      'SELECT * FROM configuration WHERE identifier = $1',
      [identifier],
    );
    return rows[0];
  };
  const upsert = (input: Record<string, unknown>, as = 'admin') =>
    t.gql<{ upsertConfiguration: ConfigurationResult }>(UPSERT_CONFIGURATION, { input }, as);
  const listFor = async (as: string): Promise<string[]> => {
    const res = await t.gql<{ configurations: Array<{ identifier: string }> }>(
      '{ configurations { identifier } }',
      {},
      as,
    );
    expect(res.errors).toBeUndefined();
    return res.data!.configurations.map((c) => c.identifier);
  };

  it('lists the four demo configurations for alice, with their attached skills', async () => {
    const res = await t.gql<{ configurations: ConfigurationResult[] }>(
      `{ configurations { ${CONFIGURATION_FIELDS} } }`,
      {},
      'alice',
    );
    expect(res.errors).toBeUndefined();
    const list = res.data!.configurations;
    expect(list.map((c) => c.identifier)).toEqual([
      'demo-editor',
      'demo-four-eyes',
      'demo-question',
      'demo-inactive',
    ]);
    const editor = list[0]!;
    expect(editor).toMatchObject({
      provider: 'scripted',
      model: 'scripted',
      privacyLevel: 'METADATA',
      maxIterations: 5,
      isActive: true,
      requireSecondApprover: false,
    });
    expect(editor.skills.map((s) => [s.identifier, s.enabled])).toEqual([
      ['legacy-skill', false],
      ['seo-process', true],
      ['tone-of-voice', true],
    ]);
    expect(list[1]!.requireSecondApprover).toBe(true);
    expect(list[2]!.privacyLevel).toBe('FULL');
    expect(list[3]!.isActive).toBe(false);
  });

  it('creates a configuration, then updates it in place (same id, changed fields, clamped iterations)', async () => {
    const before = await count('configuration');
    const created = await upsert({
      identifier: 'e2e-upsert',
      name: 'First',
      provider: 'scripted',
      model: 'scripted',
      providerOptions: SCRIPT,
      skillIdentifiers: ['tone-of-voice'],
    });
    expect(created.errors).toBeUndefined();
    const first = created.data!.upsertConfiguration;
    expect(first).toMatchObject({
      name: 'First',
      maxIterations: 5,
      privacyLevel: 'METADATA',
      isActive: true,
    });
    expect(first.skills.map((s) => s.identifier)).toEqual(['tone-of-voice']);
    expect(await count('configuration')).toBe(before + 1);

    const updated = await upsert({
      identifier: 'e2e-upsert',
      name: 'Second',
      provider: 'scripted',
      model: 'scripted-2',
      providerOptions: { rounds: [] },
      isActive: false,
      requireSecondApprover: true,
      maxIterations: 50,
      privacyLevel: 'FULL',
      skillIdentifiers: ['seo-process', 'legacy-skill'],
    });
    expect(updated.errors).toBeUndefined();
    const second = updated.data!.upsertConfiguration;
    expect(second).toMatchObject({
      id: first.id,
      name: 'Second',
      model: 'scripted-2',
      isActive: false,
      requireSecondApprover: true,
      maxIterations: 20,
      privacyLevel: 'FULL',
    });
    expect(second.skills.map((s) => s.identifier)).toEqual(['legacy-skill', 'seo-process']);
    expect(await count('configuration')).toBe(before + 1);
    const stored = await row('e2e-upsert');
    expect(stored).toMatchObject({ max_iterations: 20, name: 'Second', provider_options: { rounds: [] } });
    const links: Array<{ n: number }> = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM configuration_skill WHERE configuration_id = $1',
      [Number(first.id)],
    );
    expect(links[0]!.n).toBe(2);
  });

  it('refuses provider options over 64 KB with BAD_USER_INPUT and writes or changes nothing', async () => {
    const big = { rounds: [{ text: 'x'.repeat(70 * 1024) }] };
    const before = await counts();
    const created = await upsert({
      identifier: 'e2e-too-big',
      name: 'Big',
      provider: 'scripted',
      model: 'm',
      providerOptions: big,
    });
    expect(errorCode(created)).toBe('BAD_USER_INPUT');
    expect(created.errors![0]!.extensions).toMatchObject({ field: 'providerOptions', limit: 65536 });
    expect(await row('e2e-too-big')).toBeUndefined();

    const storedBefore = await row('demo-editor');
    const changed = await upsert({
      identifier: 'demo-editor',
      name: 'Hijacked',
      provider: 'scripted',
      model: 'm',
      providerOptions: big,
    });
    expect(errorCode(changed)).toBe('BAD_USER_INPUT');
    expect(await row('demo-editor')).toEqual(storedBefore);
    expect(await counts()).toEqual(before);
  });

  it('refuses malformed scripted rounds with BAD_USER_INPUT naming the failing paths', async () => {
    const before = await counts();
    const res = await upsert({
      identifier: 'e2e-bad-script',
      name: 'Bad',
      provider: 'scripted',
      model: 'm',
      providerOptions: { rounds: [{ text: 'ok' }, { chunks: 0, toolCalls: [{ name: 'pages_read' }] }] },
    });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    const problems = res.errors![0]!.extensions!.problems as Array<{ path: string }>;
    expect(problems.map((p) => p.path).sort()).toEqual([
      '/rounds/1/chunks',
      '/rounds/1/toolCalls/0/arguments',
    ]);
    expect(res.errors![0]!.message).toContain('/rounds/1/chunks');
    expect(await counts()).toEqual(before);
  });

  it('saves a scripted round that fails its call (`error`), and a run of it fails PROVIDER_FAILED', async () => {
    const saved = await upsert({
      identifier: 'e2e-failing-script',
      name: 'Failing',
      provider: 'scripted',
      model: 'm',
      providerOptions: { rounds: [{ text: 'Half an answer', error: 'upstream went away' }] },
    });
    expect(saved.errors).toBeUndefined();
    const run = await startRun(t, 'alice', {
      configurationId: saved.data!.upsertConfiguration.id,
      prompt: 'Go',
    });
    expect(await waitForRest(t, run.id)).toBe('FAILED');
    const rows: Array<Record<string, unknown>> = await t.dataSource.query(
      'SELECT status, termination_reason, error_message FROM run WHERE id = $1',
      [run.id],
    );
    expect(rows[0]).toEqual({
      status: 'FAILED',
      termination_reason: 'PROVIDER_FAILED',
      error_message: expect.stringContaining('upstream went away'),
    });
  });

  it('refuses unknown providers, skills and groups by name, and writes nothing', async () => {
    const before = await counts();
    const base = {
      identifier: 'e2e-unknowns',
      name: 'U',
      provider: 'scripted',
      model: 'm',
      providerOptions: SCRIPT,
    };
    const provider = await upsert({ ...base, provider: 'nope' });
    expect(errorCode(provider)).toBe('BAD_USER_INPUT');
    const skills = await upsert({ ...base, skillIdentifiers: ['tone-of-voice', 'no-such-skill'] });
    expect(errorCode(skills)).toBe('BAD_USER_INPUT');
    expect(skills.errors![0]!.extensions).toMatchObject({
      field: 'skillIdentifiers',
      unknown: ['no-such-skill'],
    });
    const groups = await upsert({ ...base, allowedGroupIds: [await groupId('editors'), '999999'] });
    expect(groups.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', unknown: ['999999'] });
    const malformed = await upsert({ ...base, allowedGroupIds: ['abc'] });
    expect(errorCode(malformed)).toBe('BAD_USER_INPUT');
    const identifier = await upsert({ ...base, identifier: 'Not Valid' });
    expect(errorCode(identifier)).toBe('BAD_USER_INPUT');
    const zero = await upsert({ ...base, maxIterations: 0 });
    expect(errorCode(zero)).toBe('BAD_USER_INPUT');
    expect(await counts()).toEqual(before);
  });

  it('lists a configuration restricted to approvers for bob and carol, not for alice; admins see it', async () => {
    const res = await upsert({
      identifier: 'e2e-approvers-only',
      name: 'Approvers only',
      provider: 'openai',
      model: 'gpt-test',
      providerOptions: { baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'CS_PROVIDER_KEY_E2E' },
      allowedGroupIds: [await groupId('approvers')],
    });
    expect(res.errors).toBeUndefined();
    expect(await listFor('bob')).toContain('e2e-approvers-only');
    expect(await listFor('carol')).toContain('e2e-approvers-only');
    expect(await listFor('alice')).not.toContain('e2e-approvers-only');
    expect(await listFor('admin')).toContain('e2e-approvers-only');
  });

  it('hides deleted configurations from every list', async () => {
    await t.dataSource.query("UPDATE configuration SET deleted_at = now() WHERE identifier = 'e2e-upsert'");
    expect(await listFor('admin')).not.toContain('e2e-upsert');
    expect(await listFor('alice')).not.toContain('e2e-upsert');
  });

  it('upserts a skill by identifier (create, then update with the same id)', async () => {
    const mutation = `mutation ($input: SkillInput!) {
      upsertSkill(input: $input) { id identifier name description isProcess enabled }
    }`;
    const before = await count('skill');
    const created = await t.gql<{ upsertSkill: { id: string; description: string; enabled: boolean } }>(
      mutation,
      {
        input: { identifier: 'e2e-skill', name: 'E2E', body: 'Do it well.' },
      },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.upsertSkill).toMatchObject({ description: '', isProcess: false, enabled: true });
    const updated = await t.gql<{ upsertSkill: { id: string } }>(mutation, {
      input: { identifier: 'e2e-skill', name: 'E2E 2', body: 'Better.', isProcess: true, enabled: false },
    });
    expect(updated.data!.upsertSkill).toMatchObject({
      id: created.data!.upsertSkill.id,
      isProcess: true,
      enabled: false,
    });
    expect(await count('skill')).toBe(before + 1);
    const rows: Array<{ body: string }> = await t.dataSource.query(
      "SELECT body FROM skill WHERE identifier = 'e2e-skill'",
    );
    expect(rows[0]!.body).toBe('Better.');
  });

  it('upserts a Task and lists it for admins with its configuration and skills', async () => {
    const mutation = `mutation ($input: TaskInput!) {
      upsertTask(input: $input) { id identifier name configuration { identifier } skills { identifier } }
    }`;
    const input = {
      identifier: 'e2e-task',
      name: 'E2E task',
      configurationIdentifier: 'demo-question',
      skillIdentifiers: ['tone-of-voice'],
      groupIds: [await groupId('interns')],
      priority: 3,
    };
    const created = await t.gql<{ upsertTask: { id: string } }>(mutation, { input });
    expect(created.errors).toBeUndefined();
    expect(created.data!.upsertTask).toMatchObject({
      identifier: 'e2e-task',
      configuration: { identifier: 'demo-question' },
      skills: [{ identifier: 'tone-of-voice' }],
    });
    const again = await t.gql<{ upsertTask: { id: string } }>(mutation, {
      input: { ...input, configurationIdentifier: 'demo-editor', skillIdentifiers: [] },
    });
    expect(again.data!.upsertTask).toMatchObject({ id: created.data!.upsertTask.id, skills: [] });

    const before = await counts();
    const unknown = await t.gql(mutation, {
      input: { ...input, configurationIdentifier: 'no-such-configuration' },
    });
    expect(unknown.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      unknown: ['no-such-configuration'],
    });
    const unknownGroup = await t.gql(mutation, { input: { ...input, groupIds: ['999999'] } });
    expect(errorCode(unknownGroup)).toBe('BAD_USER_INPUT');
    expect(await counts()).toEqual(before);

    const list = await t.gql<{ tasks: Array<{ identifier: string; configuration: { identifier: string } }> }>(
      '{ tasks { id identifier name configuration { identifier } skills { identifier } } }',
    );
    expect(list.errors).toBeUndefined();
    expect(list.data!.tasks.map((x) => [x.identifier, x.configuration.identifier])).toEqual([
      ['default', 'demo-editor'],
      ['four-eyes-chat', 'demo-four-eyes'],
      ['e2e-task', 'demo-editor'],
    ]);
  });

  it('refuses every admin operation to alice with FORBIDDEN and writes nothing', async () => {
    const before = await counts();
    const skill = await t.gql(
      'mutation { upsertSkill(input: { identifier: "alice-skill", name: "A", body: "b" }) { id } }',
      {},
      'alice',
    );
    expect(errorCode(skill)).toBe('FORBIDDEN');
    const configuration = await upsert(
      {
        identifier: 'alice-configuration',
        name: 'A',
        provider: 'scripted',
        model: 'm',
        providerOptions: SCRIPT,
      },
      'alice',
    );
    expect(errorCode(configuration)).toBe('FORBIDDEN');
    const task = await t.gql(
      'mutation { upsertTask(input: { identifier: "alice-task", name: "A", configurationIdentifier: "demo-editor" }) { id } }',
      {},
      'alice',
    );
    expect(errorCode(task)).toBe('FORBIDDEN');
    const tasks = await t.gql('{ tasks { id } }', {}, 'alice');
    expect(errorCode(tasks)).toBe('FORBIDDEN');
    expect(tasks.data ?? null).toBeNull();
    // even input that would not validate is refused as FORBIDDEN: the guard comes first
    const invalid = await upsert({ identifier: 'Bad Id', name: '', provider: 'x', model: '' }, 'alice');
    expect(errorCode(invalid)).toBe('FORBIDDEN');
    expect(await counts()).toEqual(before);
  });
});
