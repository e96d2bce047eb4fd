import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { collect, startRun, until, waitForRest } from '../support/runs';
import type { PendingTurn, RunEvent, RunStep } from '../support/generated/schema';

const RUN = `query Run($id: ID!) { run(id: $id) {
  id status stepCount iterations truncated terminationReason
  pending { kind turn turnDigest calls { callId toolName writes arguments preview }
            inputRequest { toolName question schema } }
} }`;
const RUN_EVENTS = `subscription Trace($runId: ID!, $after: Int) { runEvents(runId: $runId, afterSequence: $after) {
  kind runId outcome finalContent error step { sequence kind payload } pending { kind turn turnDigest }
} }`;

interface TraceEvent {
  runEvents: Pick<RunEvent, 'kind' | 'outcome'> & {
    step: Pick<RunStep, 'sequence' | 'kind' | 'payload'> | null;
    pending: Pick<PendingTurn, 'kind' | 'turnDigest'> | null;
  };
}

describe('runs: start, suspend, trace, cancel', () => {
  const { t, ids } = useTestApp();

  it('runs demo-editor to WAITING_FOR_APPROVAL with a preview of the SEO title', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Improve the SEO title',
      subjectPageId: ids.pages.About,
    });
    expect(run.status).toBe('RUNNING');
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    const res = await t.gql<{ run: any }>(RUN, { id: run.id }, 'alice');
    const pending = res.data!.run.pending;
    expect(pending.kind).toBe('APPROVAL');
    expect(pending.turn).toBe(1);
    expect(pending.turnDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(pending.calls).toHaveLength(1);
    expect(pending.calls[0].toolName).toBe('pages_update');
    expect(pending.calls[0].writes).toBe(true);
    expect(pending.calls[0].preview.join('\n')).toMatch(/seoTitle: "About us" -> "A sharper SEO title"/);
    const steps: Array<{ kind: string }> = await t.dataSource.query(
      'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
      [run.id],
    );
    expect(steps.map((s) => s.kind)).toEqual(['CONTEXT', 'REQUEST', 'LLM', 'TOOL', 'REQUEST', 'LLM']);
    const [row] = await t.dataSource.query(
      'SELECT step_count, checkpoint, lease_token FROM run WHERE id = $1',
      [run.id],
    );
    expect(row.step_count).toBe(6);
    expect(row.checkpoint).toMatch(/^v1\./);
    expect(row.lease_token).toBeNull();
  });

  it('suspends demo-question WAITING_FOR_INPUT with its schema', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-question'],
      prompt: 'Ask me',
    });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_INPUT');
    const res = await t.gql<{ run: any }>(RUN, { id: run.id }, 'alice');
    expect(res.data!.run.pending.kind).toBe('INPUT');
    expect(res.data!.run.pending.inputRequest.toolName).toBe('ask_user');
    expect(res.data!.run.pending.inputRequest.schema.properties.tone.enum).toEqual(['formal', 'casual']);
  });

  it('streams unfiltered steps live to admins while storage keeps them filtered', async () => {
    const sentinel = `SENTINEL-${Date.now().toString(36)}`;
    await t.dataSource.query(
      `UPDATE page_text SET body = $2 WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0`,
      [ids.pages.Widget, `Secret body ${sentinel}`],
    );
    const slow = await t.gql<{ upsertConfiguration: { id: string } }>(
      `mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }`,
      {
        input: {
          identifier: 'slow-editor',
          name: 'Slow editor',
          provider: 'scripted',
          model: 'scripted',
          providerOptions: {
            rounds: [
              { delayMs: 400, toolCalls: [{ name: 'pages_read', arguments: {} }] },
              { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'New title' } }] },
            ],
          },
        },
      },
    );
    const run = await startRun(t, 'admin', {
      configurationId: slow.data!.upsertConfiguration.id,
      prompt: 'Read it',
      subjectPageId: ids.pages.Widget,
    });
    const trace = collect<TraceEvent>(t.ws('admin'), RUN_EVENTS, { runId: run.id, after: 0 });
    // the pause is a WAITING event; the trace stays open for the continuation
    await until(() => trace.events.some((e) => e.runEvents.kind === 'WAITING'), 10_000, 'WAITING');
    trace.unsubscribe();
    expect(trace.errors).toEqual([]);
    const kinds = trace.events.map((e) => e.runEvents.kind);
    expect(kinds.filter((k) => k === 'TERMINAL')).toHaveLength(0);
    expect(kinds[kinds.length - 1]).toBe('WAITING');
    const waiting = trace.events[trace.events.length - 1]!.runEvents;
    expect(waiting.pending).toMatchObject({ kind: 'APPROVAL', turn: 1 });
    const sequences = trace.events.filter((e) => e.runEvents.step).map((e) => e.runEvents.step!.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    expect(JSON.stringify(trace.events)).toContain(sentinel);
    const stored: Array<{ payload: unknown }> = await t.dataSource.query(
      'SELECT payload FROM run_step WHERE run_id = $1',
      [run.id],
    );
    expect(stored.length).toBe(sequences.length);
    expect(JSON.stringify(stored)).not.toContain(sentinel);
  });

  it('replays stored steps after afterSequence with no gap, then WAITING for the waiting run', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Go',
    });
    await waitForRest(t, run.id);
    const trace = collect<TraceEvent>(t.ws('admin'), RUN_EVENTS, { runId: run.id, after: 2 });
    await until(() => trace.events.some((e) => e.runEvents.kind === 'WAITING'), 10_000, 'WAITING');
    trace.unsubscribe();
    const sequences = trace.events.filter((e) => e.runEvents.step).map((e) => e.runEvents.step!.sequence);
    expect(sequences).toEqual([3, 4, 5, 6]);
    expect(trace.events[trace.events.length - 1]!.runEvents.kind).toBe('WAITING');
  });

  it('lets alice start a run but not subscribe to its trace', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Go',
    });
    const trace = collect<TraceEvent>(t.ws('alice'), RUN_EVENTS, { runId: run.id, after: 0 });
    await trace.done;
    expect(trace.events).toEqual([]);
    expect(JSON.stringify(trace.errors)).toContain('FORBIDDEN');
    await waitForRest(t, run.id);
  });

  it("answers NOT_FOUND for a configuration outside the user's groups, and writes no run", async () => {
    const groups: Array<{ id: number }> = await t.dataSource.query(
      `SELECT id FROM access_group WHERE name = 'approvers'`,
    );
    const res = await t.gql<{ upsertConfiguration: { id: string } }>(
      `mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }`,
      {
        input: {
          identifier: 'approvers-only',
          name: 'Approvers only',
          provider: 'scripted',
          model: 'scripted',
          providerOptions: { rounds: [{ text: 'hi' }] },
          allowedGroupIds: [String(groups[0]!.id)],
        },
      },
    );
    const before: Array<{ n: string }> = await t.dataSource.query('SELECT count(*) AS n FROM run');
    const refused = await t.gql(
      `mutation($input: StartRunInput!) { startRun(input: $input) { id } }`,
      { input: { configurationId: res.data!.upsertConfiguration.id, prompt: 'x' } },
      'alice',
    );
    expect(errorCode(refused)).toBe('NOT_FOUND');
    const after: Array<{ n: string }> = await t.dataSource.query('SELECT count(*) AS n FROM run');
    expect(after[0]!.n).toBe(before[0]!.n);
    const ok = await startRun(t, 'bob', { configurationId: res.data!.upsertConfiguration.id, prompt: 'x' });
    expect(await waitForRest(t, ok.id)).toBe('COMPLETED');
  });

  it('refuses an inactive configuration with CONFIGURATION_INACTIVE and writes nothing', async () => {
    const before: Array<{ n: string }> = await t.dataSource.query('SELECT count(*) AS n FROM run');
    const res = await t.gql(`mutation($input: StartRunInput!) { startRun(input: $input) { id } }`, {
      input: { configurationId: ids.configurations['demo-inactive'], prompt: 'x' },
    });
    expect(errorCode(res)).toBe('CONFIGURATION_INACTIVE');
    const after: Array<{ n: string }> = await t.dataSource.query('SELECT count(*) AS n FROM run');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('cancels a waiting run, and a second cancel is refused', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Go',
    });
    await waitForRest(t, run.id);
    const cancel = `mutation($id: ID!) { cancelRun(runId: $id) { status terminationReason } }`;
    const bob = await t.gql(cancel, { id: run.id }, 'bob');
    expect(errorCode(bob)).toBe('FORBIDDEN');
    const res = await t.gql<{ cancelRun: { status: string; terminationReason: string } }>(
      cancel,
      { id: run.id },
      'alice',
    );
    expect(res.data?.cancelRun).toEqual({ status: 'CANCELLED', terminationReason: 'CANCELLED' });
    const [row] = await t.dataSource.query('SELECT checkpoint, turn_digest FROM run WHERE id = $1', [run.id]);
    expect(row).toEqual({ checkpoint: null, turn_digest: null });
    const again = await t.gql(cancel, { id: run.id }, 'alice');
    expect(errorCode(again)).toBe('RUN_NOT_WAITING');
    // a malformed id is refused on the argument the client sent
    const malformed = await t.gql(cancel, { id: 'zz' }, 'alice');
    expect([errorCode(malformed), malformed.errors?.[0]?.extensions?.field]).toEqual([
      'BAD_USER_INPUT',
      'runId',
    ]);
  });

  it('refuses a subject language the owner may not work in, before anything is written', async () => {
    const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id subjectLanguageId } }`;
    const runs = async (): Promise<number> =>
      (await t.dataSource.query<[{ n: number }]>('SELECT count(*)::int AS n FROM run'))[0].n;
    const base = { configurationId: ids.configurations['demo-editor'], prompt: 'Go' };
    const before = await runs();
    for (const [as, input] of [
      ['alice', { subjectPageId: ids.pages.About, subjectLanguageId: 2 }], // a site language no group of hers grants
      ['alice', { subjectPageId: ids.pages.About, subjectLanguageId: 999 }], // no language of the page
      ['alice', { subjectLanguageId: 2 }], // no page: checked on the page the run works on
      ['dave', { subjectPageId: ids.pages.About, subjectLanguageId: 0 }], // his group grants no language
    ] as const) {
      const res = await t.gql(START, { input: { ...base, ...input } }, as);
      expect([as, input, errorCode(res)]).toEqual([as, input, 'LANGUAGE_NOT_ACCESSIBLE']);
    }
    expect(await runs()).toBe(before);
    const german = await t.gql<{ startRun: { subjectLanguageId: number } }>(
      START,
      { input: { ...base, subjectPageId: ids.pages.About, subjectLanguageId: 1 } },
      'alice',
    );
    expect(german.data?.startRun.subjectLanguageId).toBe(1);
    expect(await runs()).toBe(before + 1);
  });

  it('hides runs from users who may neither read nor decide them', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Go',
    });
    await waitForRest(t, run.id);
    const dave = await t.gql<{ run: unknown }>(RUN, { id: run.id }, 'dave');
    expect(dave.errors).toBeUndefined();
    expect(dave.data?.run).toBeNull();
    const bob = await t.gql<{ run: any }>(
      `query($id: ID!) { run(id: $id) { id pending { calls { toolName arguments preview } } } }`,
      { id: run.id },
      'bob',
    );
    expect(bob.data?.run.pending.calls[0].arguments).toBeNull();
    expect(bob.data?.run.pending.calls[0].preview.length).toBeGreaterThan(0);
    const steps = await t.gql(
      `query($id: ID!) { run(id: $id) { steps { nodes { sequence } } } }`,
      { id: run.id },
      'bob',
    );
    expect(errorCode(steps)).toBe('FORBIDDEN');
    const malformed = await t.gql(`query { run(id: "not-a-uuid") { id } }`, {}, 'alice');
    expect(errorCode(malformed)).toBe('BAD_USER_INPUT');
  });

  it('lists own runs for users and all runs for admins', async () => {
    const mine = await t.gql<{ runs: { totalCount: number; nodes: Array<{ owner: { username: string } }> } }>(
      `{ runs(first: 200) { totalCount nodes { owner { username } } } }`,
      {},
      'alice',
    );
    expect(mine.data!.runs.nodes.every((r) => r.owner.username === 'alice')).toBe(true);
    const all = await t.gql<{ runs: { totalCount: number } }>(`{ runs { totalCount } }`, {}, 'admin');
    expect(all.data!.runs.totalCount).toBeGreaterThan(mine.data!.runs.totalCount);
  });
});
