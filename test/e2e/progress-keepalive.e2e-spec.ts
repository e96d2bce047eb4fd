import {
  decide,
  digestOf,
  effects,
  ProgressFrame,
  receiptOf,
  RUN_PROGRESS,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { collect, until } from '../support/runs';
import { useTestApp } from '../support/suite';

/**
 * Keep-alive (docs/streaming.md): while a provider streams an answer, a PROGRESS with
 * `keepAlive: true` and the unchanged step count goes out at most every
 * PROGRESS_KEEPALIVE_SECONDS (1 s here).
 */
describe('runProgress keep-alive', () => {
  const { t, ids } = useTestApp({ PROGRESS_KEEPALIVE_SECONDS: '1' });

  it('a slow answer after an approval sends keep-alives with an unchanged count', async () => {
    const configurationId = await upsertConfiguration(t, {
      identifier: 'slow-answer',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Slowly' } }] },
          { text: 'A slow answer, streamed in eight chunks.', chunks: 8, chunkDelayMs: 400 },
        ],
      },
    });
    const runId = await startResting(t, 'alice', {
      configurationId,
      prompt: 'Take your time',
      subjectPageId: ids.pages.About,
    });
    const stream = collect<ProgressFrame>(t.ws('bob'), RUN_PROGRESS, { runId });
    await until(() => stream.events.length >= 1, 10_000, 'the snapshot');
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    await stream.done;
    expect(stream.errors).toEqual([]);
    const frames = stream.events.map((e) => e.runProgress);
    const after = await effects(t, runId);
    expect(frames[frames.length - 1]).toMatchObject({
      kind: 'SETTLED',
      status: 'COMPLETED',
      stepCount: after.stepCount,
    });

    const keepAlives = frames.filter((f) => f.keepAlive);
    expect(keepAlives.length).toBeGreaterThanOrEqual(1);
    // about 2.8 s of streaming at one keep-alive a second at most
    expect(keepAlives.length).toBeLessThanOrEqual(3);
    for (const k of keepAlives) {
      expect(k).toMatchObject({ kind: 'PROGRESS', status: 'RUNNING', keepAlive: true });
      // a keep-alive carries the count of the step before it: no new step
      const i = frames.indexOf(k);
      expect(k.stepCount).toBe(frames[i - 1]!.stepCount);
    }
    // the stored steps did not grow with the keep-alives
    expect(after.steps).toBe(after.stepCount);
    const stepFrames = frames.filter((f) => f.kind === 'PROGRESS' && !f.keepAlive).slice(1);
    expect(stepFrames.map((f) => f.stepCount)).toEqual(
      Array.from({ length: stepFrames.length }, (_, i) => frames[0]!.stepCount + i + 1),
    );
  });
});
