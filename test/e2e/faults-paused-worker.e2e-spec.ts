// Faults around a continuation (issue 7, item 3): a worker paused (SIGSTOP) past its lease, in a
// slow round after its write and inside its write, with the compiled API and two workers in
// child processes. The worker that takes the run over finishes it once; the woken one commits
// nothing. Counted in the database: every write once, steps without gaps or duplicates, one
// decision per turn, nothing RUNNING without a lease (test/support/faults.ts). PostgreSQL only:
// skipped with a note under PGlite.
import { pageWrites, scriptedConfiguration, stepKinds, workerName, type Spawned } from '../support/processes';
import { onApiAndTwoWorkers, WRITE } from '../support/faults';
import { one, READ, runState, sleep } from '../support/run-state';
import { until } from '../support/runs';
import { itOnPostgres } from '../support/test-database';

onApiAndTwoWorkers((h, fleet) => {
  itOnPostgres(
    'a worker paused past its lease (SIGSTOP, then SIGCONT) commits nothing after it wakes; the worker that took over finishes once',
    async () => {
      const config = await scriptedConfiguration(
        h.ds!,
        'paused',
        [
          WRITE,
          { ...READ, delayMs: 1500 },
          { ...READ, delayMs: 1000 },
          { text: 'Done by the other worker.' },
        ],
        8,
      );
      const id = await h.waitingRun(fleet.api.port, config, 80);
      expect((await h.approve(fleet.api.port, id)).path).toBe('DURABLE');
      await h.inFirstSlowRound(id, 80);
      const { victim, other } = await fleet.claimerOf(id);
      victim.child.kill('SIGSTOP');
      try {
        await until(
          async () => (await runState(h.ds!, id)).claimed_by === workerName(other),
          20_000,
          'the other worker to take the run over',
        );
      } finally {
        victim.child.kill('SIGCONT');
      }
      const woke = await one<{ now: Date }>(h.ds!, 'SELECT clock_timestamp() AS now');
      await h.settled(id);
      await until(
        () => /lease lost/.test(victim.output()),
        10_000,
        'the woken worker to notice its lost lease',
      );
      await h.expectCarriedOutOnce(id, 80);
      expect((await runState(h.ds!, id)).requeue_count).toBe(1);
      // Nothing was written under the woken worker's name after it woke.
      const late = await h.ds!.query<unknown[]>(
        'SELECT sequence, kind FROM test_step_log WHERE run_id = $1 AND claimed_by = $2 AND at >= $3',
        [id, workerName(victim), woke.now],
      );
      expect(late).toEqual([]);
      expect(victim.alive()).toBe(true);
      await h.expectNothingStranded();
    },
    90_000,
  );

  itOnPostgres(
    'a worker paused inside its write past its lease: the write is done once, the worker that takes over continues after it, the woken one does nothing',
    async () => {
      const config = await scriptedConfiguration(h.ds!, 'paused-in-write', [
        WRITE,
        { text: 'Never reached.' },
      ]);
      const workspace = 90;
      // The workspace copy of the page exists, and the test holds its row lock: the claimer's
      // write waits for it inside its transaction.
      await h.ds!.query(
        `INSERT INTO page_text (page_id, language_id, workspace_id, title, body, seo_title, seo_description)
           SELECT page_id, language_id, $2, title, body, seo_title, seo_description FROM page_text
            WHERE page_id = $1 AND workspace_id = 0`,
        [h.page, workspace],
      );
      await h.ds!.query('DELETE FROM test_page_text_writes WHERE workspace_id = $1', [workspace]);
      const lock = h.ds!.createQueryRunner();
      await lock.connect();
      let victim: Spawned | null = null;
      try {
        await lock.startTransaction();
        await lock.query('SELECT 1 FROM page_text WHERE page_id = $1 AND workspace_id = $2 FOR UPDATE', [
          h.page,
          workspace,
        ]);
        const id = await h.waitingRun(fleet.api.port, config, workspace);
        expect((await h.approve(fleet.api.port, id)).path).toBe('DURABLE');
        // why: the write (riding in its call's completion, the run's row locked under its
        // lease) waits for the test's lock; nothing of it is visible yet.
        await until(
          async () =>
            (
              await h.ds!.query<unknown[]>(
                `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              )
            ).length === 1,
          20_000,
          'the write to wait for the lock',
        );
        expect(await runState(h.ds!, id)).toMatchObject({ status: 'RUNNING', pending_effect: null });
        victim = (await fleet.claimerOf(id)).victim;
        victim.child.kill('SIGSTOP');
        // The claimer's statement takes the lock and commits on the server, its process
        // stopped: the write with its steps and the checkpoint after it. The lease then runs
        // out: the reaper requeues the run and the other worker continues after the write
        // without repeating it. (Where the write goes in a transaction instead, the server
        // ends the stopped process's idle transaction: nothing of it commits.)
        await lock.commitTransaction();
        await until(async () => (await runState(h.ds!, id)).status === 'COMPLETED', 30_000, 'the takeover');
        expect(await runState(h.ds!, id)).toMatchObject({ lease_token: null, requeue_count: 1 });
        // No transaction of the stopped process is left open (idle_in_transaction_session_timeout).
        const idleInTransaction = async (): Promise<number> =>
          (
            await h.ds!.query<unknown[]>(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
            )
          ).length;
        await until(async () => (await idleInTransaction()) === 0, 6000, 'the idle transaction to end').catch(
          () => undefined,
        );
        const stillIdle = await idleInTransaction();
        victim.child.kill('SIGCONT');
        await sleep(2000);
        expect(await pageWrites(h.ds!, workspace)).toBe(1);
        expect(stillIdle).toBe(0);
        expect((await stepKinds(h.ds!, id)).filter((k) => k === 'TOOL_WRITE')).toEqual(['TOOL_WRITE']);
        expect(await one(h.ds!, 'SELECT outcome FROM decision WHERE run_id = $1', [id])).toEqual({
          outcome: 'COMPLETED',
        });
        expect(victim.alive()).toBe(true);
        await h.expectNothingStranded();
      } finally {
        victim?.child.kill('SIGCONT');
        if (lock.isTransactionActive) await lock.rollbackTransaction();
        await lock.release();
      }
    },
    90_000,
  );
});
