import {
  createToken,
  createUserWithToken,
  decide,
  digestOf,
  effects,
  ProgressFrame,
  receiptOf,
  RUN_PROGRESS,
  sleep,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { collect, until, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

type Frame = ProgressFrame['runProgress'];
const frames = (c: { events: ProgressFrame[] }): Frame[] => c.events.map((e) => e.runProgress);

/** Asserts the shape of a complete progress stream: PROGRESS ... then one SETTLED, counts only. */
function expectWellFormed(list: Frame[], runId: string): void {
  expect(list.length).toBeGreaterThanOrEqual(2);
  expect(list.slice(0, -1).every((f) => f.kind === 'PROGRESS')).toBe(true);
  expect(list[list.length - 1]!.kind).toBe('SETTLED');
  expect(list.every((f) => f.runId === runId)).toBe(true);
  for (const f of list)
    expect(Object.keys(f).sort()).toEqual(['keepAlive', 'kind', 'runId', 'status', 'stepCount', 'turn']);
  const counts = list.map((f) => f.stepCount);
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  const steps = list.filter((f) => f.kind === 'PROGRESS' && !f.keepAlive).map((f) => f.stepCount);
  expect(new Set(steps.slice(1)).size).toBe(steps.length - 1);
}

/** runProgress (docs/streaming.md): counts only, open while waiting, re-authorised per event. */
describe('runProgress', () => {
  const { t, ids } = useTestApp();

  const editorRun = (as: string, page: string, configurationId = ids.configurations['demo-editor']) =>
    startResting(t, as, { configurationId, prompt: 'SEO please', subjectPageId: ids.pages[page] });

  it('on a waiting run stays open until a decision; then PROGRESS frames and SETTLED COMPLETED', async () => {
    const runId = await editorRun('alice', 'About');
    const before = await effects(t, runId);
    const stream = collect<ProgressFrame>(t.ws('alice'), RUN_PROGRESS, { runId });
    await until(() => stream.events.length >= 1, 10_000, 'the snapshot');
    expect(frames(stream)[0]).toEqual({
      kind: 'PROGRESS',
      runId,
      stepCount: before.stepCount,
      status: 'WAITING_FOR_APPROVAL',
      turn: 1,
      keepAlive: false,
    });
    const open = await Promise.race([stream.done.then(() => 'closed'), sleep(600).then(() => 'open')]);
    expect(open).toBe('open');
    expect(stream.events).toHaveLength(1);

    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    await stream.done;
    expect(stream.errors).toEqual([]);
    const list = frames(stream);
    expectWellFormed(list, runId);
    const after = await effects(t, runId);
    expect(list[list.length - 1]).toEqual({
      kind: 'SETTLED',
      runId,
      stepCount: after.stepCount,
      status: 'COMPLETED',
      turn: 1,
      keepAlive: false,
    });
    // one PROGRESS per step recorded after the snapshot, the decision's own step first
    const stepFrames = list.slice(1).filter((f) => f.kind === 'PROGRESS' && !f.keepAlive);
    expect(stepFrames.map((f) => f.stepCount)).toEqual(
      Array.from({ length: after.stepCount - before.stepCount }, (_, i) => before.stepCount + i + 1),
    );
    expect(stepFrames[0]!.status).toBe('RUNNING');
    expect(after.status).toBe('COMPLETED');
  });

  it('bob (grant, no detail) never sees content: no sentinel from the page or the answer in any frame', async () => {
    const sentinel = `SENTINEL-${Date.now().toString(36)}-X`;
    await t.dataSource.query(
      'UPDATE page_text SET body = $2 WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0',
      [ids.pages.Widget, `The widget. ${sentinel} (secret body)`],
    );
    const configurationId = await upsertConfiguration(t, {
      identifier: 'sentinel-editor',
      privacyLevel: 'FULL',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_read', arguments: {} }] },
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Widgets, plainly' } }] },
          { text: `Here is the secret: ${sentinel}. Done.`, chunks: 4, chunkDelayMs: 30 },
        ],
      },
    });
    const runId = await editorRun('alice', 'Widget', configurationId);
    const progress = collect<ProgressFrame>(t.ws('bob'), RUN_PROGRESS, { runId });
    await until(() => progress.events.length >= 1, 10_000, 'bob’s snapshot');
    receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest: await digestOf(t, runId) }));
    await progress.done;
    expect(progress.errors).toEqual([]);
    const list = frames(progress);
    expectWellFormed(list, runId);
    expect(list[list.length - 1]).toMatchObject({ kind: 'SETTLED', status: 'COMPLETED' });
    expect(list.filter((f) => f.kind === 'PROGRESS').length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(progress.events)).not.toContain(sentinel);
    expect(JSON.stringify(progress.events)).not.toMatch(/pages_update|pages_read|Widgets, plainly|secret/);
    // the sentinel was really there to leak (FULL privacy keeps it): in what the page read
    // returned, and in the model's answer
    const [run] = await t.dataSource.query('SELECT answer FROM run WHERE id = $1', [runId]);
    expect(run.answer).toBe(`Here is the secret: ${sentinel}. Done.`);
    const stored = await t.dataSource.query(
      `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'TOOL'`,
      [runId],
    );
    expect(JSON.stringify(stored)).toContain(`${sentinel} (secret body)`);
  });

  it('a subscriber that disconnects mid-continuation changes nothing; a new one gets snapshot then SETTLED', async () => {
    const reads = Array.from({ length: 10 }, () => ({
      toolCalls: [{ name: 'pages_read', arguments: {} }],
      delayMs: 120,
    }));
    const configurationId = await upsertConfiguration(t, {
      identifier: 'ten-reads',
      maxIterations: 15,
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Ten reads later' } }] },
          ...reads,
          { text: 'Read it ten times.' },
        ],
      },
    });
    const runId = await editorRun('alice', 'Blog', configurationId);
    const client = t.ws('alice');
    const first = collect<ProgressFrame>(client, RUN_PROGRESS, { runId });
    await until(() => first.events.length >= 1, 10_000, 'the snapshot');
    receiptOf(await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) }));
    await until(() => first.events.length >= 5, 10_000, 'a few steps');
    await client.dispose();
    const cut = frames(first);
    expect(cut[cut.length - 1]!.kind).toBe('PROGRESS');
    expect(await waitForRest(t, runId, 30_000)).toBe('COMPLETED');
    const [run] = await t.dataSource.query('SELECT termination_reason, iterations FROM run WHERE id = $1', [
      runId,
    ]);
    expect(run).toEqual({ termination_reason: 'COMPLETED', iterations: 12 });
    const after = await effects(t, runId, { pageId: ids.pages.Blog! });
    expect(after.page!.seo_title).toBe('Ten reads later');
    expect(after.kinds.filter((k) => k === 'TOOL')).toHaveLength(11);
    expect(after.stepCount).toBe(after.steps);
    expect(after.stepCount).toBeGreaterThan(cut[cut.length - 1]!.stepCount);

    const again = collect<ProgressFrame>(t.ws('alice'), RUN_PROGRESS, { runId });
    await again.done;
    expect(again.errors).toEqual([]);
    expect(frames(again)).toEqual([
      { kind: 'PROGRESS', runId, stepCount: after.stepCount, status: 'COMPLETED', turn: 1, keepAlive: false },
      { kind: 'SETTLED', runId, stepCount: after.stepCount, status: 'COMPLETED', turn: 1, keepAlive: false },
    ]);
  });

  it('a revoked token stops delivery at once: its connection closes (4401) before the next event', async () => {
    const runId = await editorRun('alice', 'Launch');
    const own = await createToken(t, ids.users.bob!, 'bob');
    const stream = collect<ProgressFrame>(t.ws(own.token), RUN_PROGRESS, { runId });
    await until(() => stream.events.length >= 1, 10_000, 'the snapshot');
    const revoked = await t.gql(
      `mutation($id: ID!) { revokeApiToken(tokenId: $id) }`,
      { id: own.tokenId },
      'bob',
    );
    expect(revoked.data).toEqual({ revokeApiToken: true });
    await stream.done;
    expect((stream.errors[0] as { code?: number }).code).toBe(4401);
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    expect(frames(stream)).toHaveLength(1);
    expect(frames(stream)[0]).toMatchObject({ kind: 'PROGRESS', status: 'WAITING_FOR_APPROVAL' });
    // the run itself goes on and settles
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
  });

  it('a lost grant stops delivery too: removed from the approvers, the stream ends with FORBIDDEN', async () => {
    const runId = await editorRun('alice', 'Products');
    const [approvers] = await t.dataSource.query(`SELECT id FROM access_group WHERE name = 'approvers'`);
    const grace = await createUserWithToken(t, 'grace-approver', [approvers.id]);
    const stream = collect<ProgressFrame>(t.ws(grace.token), RUN_PROGRESS, { runId });
    await until(() => stream.events.length >= 1, 10_000, 'the snapshot');
    await t.dataSource.query('DELETE FROM group_member WHERE user_id = $1', [grace.userId]);
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    await stream.done;
    expect(frames(stream)).toHaveLength(1);
    expect(JSON.stringify(stream.errors)).toContain('FORBIDDEN');
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
  });

  it('a caller who may neither read nor decide gets NOT_FOUND, like the query', async () => {
    const runId = await editorRun('alice', 'Home');
    const stream = collect<ProgressFrame>(t.ws('dave'), RUN_PROGRESS, { runId });
    await stream.done;
    expect(stream.events).toEqual([]);
    expect(JSON.stringify(stream.errors)).toContain('NOT_FOUND');
  });
});
