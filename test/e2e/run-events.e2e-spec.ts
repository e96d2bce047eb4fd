import { decide, digestOf, receiptOf, upsertConfiguration } from '../support/decisions';
import { collect, startRun, until, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

const RUN_EVENTS = `subscription($runId: ID!) { runEvents(runId: $runId) {
  kind runId outcome finalContent step { sequence kind payload } pending { kind turn turnDigest }
} }`;

interface Frame {
  runEvents: {
    kind: 'STEP' | 'WAITING' | 'TEXT_DELTA' | 'TERMINAL';
    runId: string;
    outcome: string | null;
    finalContent: string | null;
    step: { sequence: number; kind: string; payload: unknown } | null;
    pending: { kind: string; turn: number; turnDigest: string } | null;
  };
}

/**
 * runEvents follows a run across its pauses (issue 16): opened on a waiting run it says
 * WAITING and stays open, streams the continuation after each decision live and unfiltered,
 * marks the next pause with WAITING again, and ends with one TERMINAL once the run settles.
 */
describe('runEvents across pauses', () => {
  const { t, ids } = useTestApp();
  let twoPauses: string;
  let page: string;

  beforeAll(async () => {
    page = ids.pages.About!;
    twoPauses = await upsertConfiguration(t, {
      identifier: 'trace-two-pauses',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'First title' } }] },
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Second title' } }] },
          { text: 'Both titles written.' },
        ],
      },
    });
  });

  const approve = async (runId: string) =>
    receiptOf(await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) }));

  it('WAITING on a waiting run, the continuation after approving, WAITING again, then one TERMINAL', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: twoPauses,
      prompt: 'Two titles',
      subjectPageId: page,
    });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    const trace = collect<Frame>(t.ws('admin'), RUN_EVENTS, { runId: run.id });
    const frames = () => trace.events.map((e) => e.runEvents);
    const waits = () => frames().filter((f) => f.kind === 'WAITING');
    let ended = false;
    void trace.done.then(() => (ended = true));

    await until(() => waits().length === 1, 10_000, 'the first WAITING');
    const replayed = frames().filter((f) => f.kind === 'STEP').length;
    expect(waits()[0]!.pending).toMatchObject({ kind: 'APPROVAL', turn: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect({ ended, errors: trace.errors }).toEqual({ ended: false, errors: [] });

    await approve(run.id);
    await until(() => waits().length === 2, 10_000, 'the second WAITING');
    expect(waits()[1]!.pending).toMatchObject({ kind: 'APPROVAL', turn: 2 });
    expect(frames().filter((f) => f.kind === 'STEP').length).toBeGreaterThan(replayed);
    expect(ended).toBe(false);

    await approve(run.id);
    await trace.done;
    expect(trace.errors).toEqual([]);
    const all = frames();
    // the answer's text streams before the TERMINAL: its first text at once, then the final
    // delta (empty here: the scripted answer is one chunk)
    const kinds = all.map((f) => f.kind).filter((k) => k !== 'STEP');
    expect(kinds.filter((k, i) => k !== 'TEXT_DELTA' || kinds[i - 1] !== 'TEXT_DELTA')).toEqual([
      'WAITING',
      'WAITING',
      'TEXT_DELTA',
      'TERMINAL',
    ]);
    expect(all.at(-1)).toMatchObject({
      kind: 'TERMINAL',
      outcome: 'DONE',
      finalContent: 'Both titles written.',
    });
    // every step once, in order, with no gap across the pauses
    const sequences = all.filter((f) => f.step).map((f) => f.step!.sequence);
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM run_step WHERE run_id = $1', [
      run.id,
    ]);
    expect(sequences).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    // the continuation streamed live: unfiltered, as the run saw it (the text in the LLM step)
    const live = all.slice(all.indexOf(waits()[0]!) + 1);
    expect(JSON.stringify(live)).toContain('Second title');
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
  });

  it('a run that settled already replays and ends with TERMINAL at once', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: twoPauses,
      prompt: 'Cancel me',
      subjectPageId: page,
    });
    await waitForRest(t, run.id);
    await t.gql(`mutation($id: ID!) { cancelRun(runId: $id) { status } }`, { id: run.id }, 'alice');
    const trace = collect<Frame>(t.ws('admin'), RUN_EVENTS, { runId: run.id });
    await trace.done;
    const kinds = trace.events.map((e) => e.runEvents.kind);
    expect(kinds.filter((k) => k !== 'STEP')).toEqual(['TERMINAL']);
    expect(trace.events.at(-1)!.runEvents.outcome).toBe('CANCELLED');
  });

  it("a pause carries the turn's deadline and quorum, live and when opened on a waiting run", async () => {
    const quorum = await upsertConfiguration(t, {
      identifier: 'trace-deadline-quorum',
      providerOptions: {
        rounds: [
          { delayMs: 500, toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Quorum title' } }] },
          { text: 'Done.' },
        ],
      },
      approvalTimeoutSeconds: 3600,
      requiredApprovals: 2,
    });
    const run = await startRun(t, 'alice', { configurationId: quorum, prompt: 'Title', subjectPageId: page });
    const PENDING = `${RUN_EVENTS.replace('pending { kind turn turnDigest }', 'pending { kind expiresAt approvalsRequired }')}`;
    type Paused = {
      runEvents: { kind: string; pending: { expiresAt: string | null; approvalsRequired: number } | null };
    };
    const live = collect<Paused>(t.ws('admin'), PENDING, { runId: run.id });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    await until(() => live.events.some((e) => e.runEvents.kind === 'WAITING'), 10_000, 'the live WAITING');
    const opened = collect<Paused>(t.ws('admin'), PENDING, { runId: run.id });
    await until(
      () => opened.events.some((e) => e.runEvents.kind === 'WAITING'),
      10_000,
      'the WAITING on opening',
    );
    live.unsubscribe();
    opened.unsubscribe();
    const res = await t.gql<{ run: { pending: { expiresAt: string } } }>(
      `query($id: ID!) { run(id: $id) { pending { expiresAt } } }`,
      { id: run.id },
    );
    const expiresAt = new Date(res.data!.run.pending.expiresAt).getTime();
    expect(expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    for (const stream of [live, opened]) {
      const waiting = stream.events.find((e) => e.runEvents.kind === 'WAITING')!.runEvents.pending!;
      expect(waiting.approvalsRequired).toBe(2);
      expect(new Date(waiting.expiresAt!).getTime()).toBe(expiresAt);
    }
  });
});
