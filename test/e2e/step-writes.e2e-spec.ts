import { RunEventsPublisher, RunExecutor } from '../../src/modules/runs';
import { upsertConfiguration } from '../support/decisions';
import { collect, startRun, waitForRest } from '../support/runs';
import { StatementLog } from '../support/statement-log';
import { useTestApp } from '../support/suite';

const RUN_EVENTS = `subscription($runId: ID!) { runEvents(runId: $runId) { kind step { sequence kind } } }`;

interface Frame {
  runEvents: { kind: string; step: { sequence: number; kind: string } | null };
}

/**
 * A run's steps are written behind (KeptSteps): kept in memory and stored together right
 * before the run's next model call, effect or settle, and announced only once stored.
 */
describe("a run's steps: written behind, announced once stored", () => {
  const { t, ids } = useTestApp();
  let readThrice: string;
  let page: string;

  beforeAll(async () => {
    page = ids.pages.About!;
    readThrice = await upsertConfiguration(t, {
      identifier: 'steps-read-thrice',
      providerOptions: {
        rounds: [
          // why: the first answer waits, so the trace subscriber is there before most steps.
          { toolCalls: [{ name: 'pages_read', arguments: {} }], delayMs: 300 },
          { toolCalls: [{ name: 'pages_read', arguments: {} }] },
          { toolCalls: [{ name: 'pages_read', arguments: {} }] },
          { text: 'Read three times.' },
        ],
      },
    });
  });

  it('stores a round of a model call and a read in one statement, and announces every step after its commit', async () => {
    const publisher = t.app.get(RunEventsPublisher);
    const original = publisher.step.bind(publisher);
    const checks: Array<Promise<{ sequence: number; stored: boolean }>> = [];
    // why: at the moment a step is announced, it must already be visible to anyone else.
    const spy = jest.spyOn(publisher, 'step').mockImplementation((runId, step, status, turn) => {
      checks.push(
        t.dataSource
          .query('SELECT 1 FROM run_step WHERE run_id = $1 AND sequence = $2', [runId, step.sequence])
          .then((rows: unknown[]) => ({ sequence: step.sequence, stored: rows.length === 1 })),
      );
      return original(runId, step, status, turn);
    });
    const log = StatementLog.open();
    try {
      const run = await startRun(t, 'alice', {
        configurationId: readThrice,
        prompt: 'Read',
        subjectPageId: page,
      });
      const runId = run.id;
      const trace = collect<Frame>(t.ws('admin'), RUN_EVENTS, { runId });
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      await t.app.get(RunExecutor).settled(runId);
      await trace.done;
      expect(trace.errors).toEqual([]);
      const announced = trace.events.flatMap((e) => (e.runEvents.step ? [e.runEvents.step] : []));
      const stored: Array<{ sequence: number; kind: string }> = await t.dataSource.query(
        'SELECT sequence, kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
        [runId],
      );
      expect(stored.map((s) => s.kind)).toEqual([
        'CONTEXT',
        ...Array.from({ length: 3 }, () => ['REQUEST', 'LLM', 'TOOL']).flat(),
        'REQUEST',
        'LLM',
      ]);
      expect(stored.map((s) => s.sequence)).toEqual(stored.map((_, i) => i + 1));
      expect(announced).toEqual(stored);
    } finally {
      log.close();
      spy.mockRestore();
    }
    const results = await Promise.all(checks);
    expect(results.filter((r) => !r.stored)).toEqual([]);
    expect(results.map((r) => r.sequence)).toEqual(results.map((_, i) => i + 1));
    // why: one statement per step was 14; kept, they are stored before each model call
    // (CONTEXT with the first REQUEST; each round's LLM and TOOL with the next REQUEST) and with
    // the settle (the last LLM): 5.
    const stepWrites = log.statements.filter((s) => /INSERT INTO run_step/.test(s.text));
    expect(stepWrites).toHaveLength(5);
    // why: the last of them is the settle itself: its UPDATE stores the last LLM step.
    expect(stepWrites[4]?.text).toMatch(/status = \$3, termination_reason = \$4/);
  });
});
