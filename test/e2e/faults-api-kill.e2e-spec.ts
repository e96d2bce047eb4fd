// Faults around a continuation (issue 7, item 3): the API process killed (kill -9) right after
// the receipts of a durable and an inline decision, with two workers in child processes. A worker
// carries out both decisions, each write once, or the inline one ends FAILED with its outcome on
// record where the kill fell inside the write (test/support/faults.ts). PostgreSQL only: skipped
// with a note under PGlite.
import { kill9, pageWrites, scriptedConfiguration, stepKinds } from '../support/processes';
import { onApiAndTwoWorkers, WRITE } from '../support/faults';
import { one, READ, runState } from '../support/run-state';
import { itOnPostgres } from '../support/test-database';

onApiAndTwoWorkers((h, fleet) => {
  itOnPostgres(
    'kill -9 of the API right after the receipts: a worker carries out the durable and the inline decision, each write once',
    async () => {
      const config = await scriptedConfiguration(h.ds!, 'after-api-kill', [
        WRITE,
        { ...READ, delayMs: 300 },
        { text: 'Done after the API died.' },
      ]);
      const durable = await h.waitingRun(fleet.api.port, config, 50);
      const inline = await h.waitingRun(fleet.api.port, config, 51);
      expect(await h.approve(fleet.api.port, durable, 'DURABLE')).toEqual({
        path: 'DURABLE',
        run: { status: 'DECISION_RECORDED' },
      });
      const receipt = await h.approve(fleet.api.port, inline, 'INLINE');
      // why: the kill follows the receipt at once: the API had claimed the inline run under
      // its own lease and was starting the continuation.
      await kill9(fleet.api);
      expect(receipt).toEqual({ path: 'INLINE', run: { status: 'RUNNING' } });

      await h.settled(durable);
      await h.settled(inline);
      await h.expectCarriedOutOnce(durable, 50);
      const end = await runState(h.ds!, inline);
      const { outcome } = await one<{ outcome: string | null }>(
        h.ds!,
        'SELECT outcome FROM decision WHERE run_id = $1',
        [inline],
      );
      const writes = {
        steps: (await stepKinds(h.ds!, inline)).filter((k) => k === 'TOOL_WRITE').length,
        pages: await pageWrites(h.ds!, 51),
      };
      console.log(
        `inline decision, API killed after its receipt: ${end.status}/${end.termination_reason}, ` +
          `requeues ${end.requeue_count}, TOOL_WRITE ${writes.steps}, page writes ${writes.pages}, decision outcome ${outcome}`,
      );
      if (end.status === 'COMPLETED') {
        // Taken over by a worker after the API's lease expired: continued, the write once.
        await h.expectCarriedOutOnce(inline, 51);
        expect(end.requeue_count).toBe(1);
      } else {
        // The kill fell between the write's pending effect and its record: not repeated, and
        // the decision's outcome is on record (docs/run-lifecycle.md, the reaper).
        expect(end).toMatchObject({
          status: 'FAILED',
          termination_reason: 'NOT_RETRYABLE',
          lease_token: null,
        });
        expect(writes.pages).toBeLessThanOrEqual(1);
        expect(writes.steps).toBeLessThanOrEqual(writes.pages);
        expect(outcome).toBe('FAILED');
      }
      await h.expectNothingStranded();
    },
    90_000,
  );
});
