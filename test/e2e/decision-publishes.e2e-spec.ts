import { EventBus } from '../../src/platform/pubsub/event-bus';
import { INBOX_TOPIC, progressTopic, RunExecutor, WORK_TOPIC } from '../../src/modules/runs';
import { decide, digestOf, receiptOf, startResting } from '../support/decisions';
import { waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

/** How long the held inbox publish takes (a slow Redis, say). */
const HELD_MS = 400;

/**
 * What a decision publishes once its claim committed goes out side by side, the run's own
 * stream first: over Redis every publish is a round trip, and the decider's first event must
 * not wait for the inbox's (docs/decisions.md, "The decision record").
 */
describe('decisions: the publishes after the claim', () => {
  const { t, ids } = useTestApp({}, { beforeClose: () => jest.restoreAllMocks() });

  /** When each topic's publish was asked for, with the inbox's held for HELD_MS. */
  function holdInbox(): Map<string, number> {
    const bus = t.app.get(EventBus);
    const publish = bus.publish.bind(bus);
    const asked = new Map<string, number>();
    jest.spyOn(bus, 'publish').mockImplementation(async (topic: string, payload: unknown) => {
      if (!asked.has(topic)) asked.set(topic, performance.now());
      if (topic === INBOX_TOPIC) await new Promise((r) => setTimeout(r, HELD_MS));
      await publish(topic, payload);
    });
    return asked;
  }

  const waiting = () =>
    startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Products,
    });

  it.each(['INLINE', 'DURABLE'] as const)(
    '%s: the run progress is asked for before the held inbox publish has finished',
    async (path) => {
      const runId = await waiting();
      const digest = await digestOf(t, runId);
      if (path === 'DURABLE') {
        await t.dataSource.query(
          `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('publishes-worker', 'worker:test')
           ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
        );
      }
      const asked = holdInbox();
      try {
        const receipt = receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest, path }));
        expect(receipt.path).toBe(path);
      } finally {
        jest.restoreAllMocks();
        await t.dataSource.query(`DELETE FROM worker_heartbeat WHERE worker_id = 'publishes-worker'`);
      }
      const inbox = asked.get(INBOX_TOPIC);
      const progress = asked.get(progressTopic(runId));
      expect(inbox).toBeDefined();
      expect(progress).toBeDefined();
      // the run's own event is not queued behind the inbox's: asked for first, and well before
      // the held publish could have finished
      expect(progress!).toBeLessThanOrEqual(inbox!);
      if (path === 'DURABLE') expect(asked.get(WORK_TOPIC)! - inbox!).toBeLessThan(HELD_MS / 2);
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      await t.app.get(RunExecutor).settled(runId);
    },
  );
});
