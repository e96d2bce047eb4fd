import {
  decide,
  digestOf,
  effects,
  expectRefusedUnchanged,
  receiptOf,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

/**
 * Input schemas come from model output (a prompt-injected page can choose them): their patterns
 * match in linear time, and only a documented subset of JSON Schema is accepted.
 */
describe('input schemas written by the model', () => {
  const { t, ids } = useTestApp();
  let pageId: string;

  /** A configuration whose model asks once with `schema`, then says it is done. */
  const asking = (identifier: string, schema: Record<string, unknown>) =>
    upsertConfiguration(t, {
      identifier,
      privacyLevel: 'FULL',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'ask_user', arguments: { question: 'Your name?', schema } }] },
          { text: 'done' },
        ],
      },
    });

  const toolResults = async (runId: string): Promise<Array<{ isError: boolean; result: unknown }>> =>
    (
      await t.dataSource.query(
        `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'TOOL' ORDER BY sequence`,
        [runId],
      )
    ).map((r: { payload: { isError: boolean; result: unknown } }) => r.payload);

  beforeAll(() => {
    pageId = ids.pages.Home!;
  });

  it('matches a catastrophic-backtracking pattern against a long answer in milliseconds', async () => {
    const configurationId = await asking('evil-pattern', {
      type: 'object',
      properties: { name: { type: 'string', pattern: '^(a+)+$' } },
      required: ['name'],
    });
    const runId = await startResting(
      t,
      'alice',
      { configurationId, subjectPageId: pageId, prompt: 'Ask' },
      'WAITING_FOR_INPUT',
    );
    const turnDigest = await digestOf(t, runId);
    const before = await effects(t, runId);
    const started = Date.now();
    // why: with a backtracking engine 30 characters and a mismatch at the end take seconds.
    const values = { name: `${'a'.repeat(5000)}!` };
    const res = await decide(t, 'submit', 'alice', { runId, turnDigest, values });
    expect(Date.now() - started).toBeLessThan(1000);
    await expectRefusedUnchanged(t, res, 'INVALID_INPUT', runId, before);
    expect(res.errors![0]!.extensions!.paths).toEqual(['/name']);
    expect(before).toMatchObject({ status: 'WAITING_FOR_INPUT', decisions: 0 });

    receiptOf(await decide(t, 'submit', 'alice', { runId, turnDigest, values: { name: 'aaaa' } }));
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
  });

  it.each([
    ['a conditional ("if")', { if: { properties: { a: { const: 1 } } }, then: { required: ['b'] } }, /"if"/],
    ['a reference ("$ref")', { properties: { a: { $ref: '#' } } }, /\/properties\/a uses "\$ref"/],
    [
      'regular expressions on keys',
      { patternProperties: { '^x': { type: 'string' } } },
      /"patternProperties"/,
    ],
    [
      'a lookahead RE2 cannot run',
      { properties: { a: { type: 'string', pattern: '(?=a)a' } } },
      /does not compile/,
    ],
  ])('refuses %s at classification: the model reads why, nobody is asked', async (_what, extra, why) => {
    const configurationId = await asking(`refused-schema-${Math.random().toString(36).slice(2, 8)}`, {
      type: 'object',
      properties: {},
      ...extra,
    });
    const runId = await startResting(
      t,
      'alice',
      { configurationId, subjectPageId: pageId, prompt: 'Ask' },
      'COMPLETED',
    );
    const results = await toolResults(runId);
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    expect((results[0]!.result as { error: string }).error).toMatch(why);
    const after = await effects(t, runId);
    expect(after).toMatchObject({ status: 'COMPLETED', decisions: 0 });
    expect(after.kinds).not.toContain('INPUT');
  });

  it('still accepts a schema of the allowed keywords', async () => {
    const configurationId = await asking('allowed-schema', {
      type: 'object',
      title: 'Name',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 20, pattern: '^[a-z]+$', default: 'x' },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
      },
      required: ['name'],
      additionalProperties: false,
    });
    await startResting(
      t,
      'alice',
      { configurationId, subjectPageId: pageId, prompt: 'Ask' },
      'WAITING_FOR_INPUT',
    );
  });
});
