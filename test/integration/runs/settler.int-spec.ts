import { randomUUID } from 'node:crypto';
import { DecisionBookkeeping } from '../../../src/modules/approvals/application/decision-bookkeeping';
import { RunSettlements, type RunSettled } from '../../../src/modules/runs/application/run-settlements';
import type { RunSettler } from '../../../src/modules/runs/application/run-settler';
import type { Step } from '../../../src/agent';
import { KeptSteps } from '../../../src/modules/runs/application/kept-steps';
import { managerOf, TransactionRunner } from '../../../src/platform/database/transaction-runner';
import { StatementLog } from '../../support/statement-log';
import { useTestDatabase } from '../../support/test-database';
import {
  LEASE_SECONDS,
  rowOf,
  runningRun,
  RunsKit,
  runsKit,
  settlerFor,
  step,
  waitingRun,
} from './runs-support';

/**
 * The one settler (docs/architecture.md): the run's new state and its decision's bookkeeping
 * commit together with what in-process listeners write of it, and nobody hears of a settle
 * whose transaction did not commit.
 */
describe('the run settler on a real database', () => {
  const suite = useTestDatabase({ quietLogs: true });
  let kit: RunsKit;
  let settler: RunSettler;
  const published: Array<{ topic: string; payload: unknown }> = [];
  const told: RunSettled[] = [];

  beforeAll(async () => {
    kit = await runsKit(suite.ds);
    const settlements = new RunSettlements();
    new DecisionBookkeeping(settlements).onModuleInit();
    // a listener that writes (as the chat writes its answer message) through the ambient manager
    settlements.register({
      onRunSettled: async (e) => {
        told.push(e);
        await managerOf(suite.ds).query(
          `INSERT INTO worker_heartbeat (worker_id, name) VALUES ($1, 'listener')`,
          [e.runId],
        );
      },
    });
    settler = settlerFor(
      kit,
      {
        publish: (topic: string, payload: unknown) =>
          Promise.resolve(void published.push({ topic, payload })),
      },
      settlements,
    );
  });
  beforeEach(() => {
    published.length = 0;
    told.length = 0;
  });

  /** A decision on the run's current turn, as a claim records it, and the run marked decided. */
  async function decide(runId: string): Promise<string> {
    const id = randomUUID();
    const [{ turn }] = await suite.ds.query<[{ turn: number }]>('SELECT turn FROM run WHERE id = $1', [
      runId,
    ]);
    const [alice] = await suite.ds.query<Array<{ id: number }>>(
      `SELECT id FROM app_user WHERE username = 'alice'`,
    );
    await suite.ds.query(
      `INSERT INTO decision (id, run_id, turn, kind, decided_by, turn_digest, path, fingerprint)
       VALUES ($1, $2, $3, 'APPROVE', $4, $5, 'INLINE', 'f')`,
      [id, runId, turn, alice!.id, 'a'.repeat(64)],
    );
    await suite.ds.query('UPDATE run SET had_decision = true WHERE id = $1', [runId]);
    return id;
  }
  const listenerWrote = async (runId: string) =>
    (await suite.ds.query<unknown[]>('SELECT 1 FROM worker_heartbeat WHERE worker_id = $1', [runId]))
      .length === 1;
  const decisionRow = async (id: string) =>
    (await suite.ds.query<Array<Record<string, unknown>>>('SELECT * FROM decision WHERE id = $1', [id]))[0]!;

  it("records the decision's outcome with the settle, then tells listeners and subscribers", async () => {
    const lease = await runningRun(kit);
    const decisionId = await decide(lease.runId);
    await kit.repository.appendStep(lease, step(1), LEASE_SECONDS);
    const row = await settler.settle({ lease }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message: 'boom' });
    expect(row).toEqual({
      stepCount: 1,
      turn: 0,
      hadDecision: true,
      chatTurn: false,
      expiresAt: null,
      approvalsRequired: 1,
    });
    expect((await rowOf(suite.ds, lease.runId)).status).toBe('FAILED');
    expect((await decisionRow(decisionId)).outcome).toBe('FAILED');
    expect(told).toEqual([{ runId: lease.runId, status: 'FAILED', errorMessage: 'boom', chatTurn: false }]);
    expect(await listenerWrote(lease.runId)).toBe(true);
    expect(published.map((p) => p.topic)).toEqual([
      `run.trace.${lease.runId}`,
      `run.progress.${lease.runId}`,
    ]);
  });

  it('fails a run with a message longer than the run keeps: cut to fit, the same for the row and listeners', async () => {
    const lease = await runningRun(kit);
    const long = `The provider URL https://${'x'.repeat(1_900)}.test is not an allowed provider URL`;
    const row = await settler.settle({ lease }, { kind: 'FAILED', reason: 'PROVIDER_FAILED', message: long });
    expect(row).not.toBeNull();
    const stored = await rowOf(suite.ds, lease.runId);
    expect(stored.status).toBe('FAILED');
    expect(stored.termination_reason).toBe('PROVIDER_FAILED');
    const kept = stored.error_message as string;
    expect(kept).toHaveLength(500);
    expect(kept.startsWith('The provider URL https://xxx')).toBe(true);
    expect(kept.endsWith('…[truncated]')).toBe(true);
    expect(told).toEqual([{ runId: lease.runId, status: 'FAILED', errorMessage: kept, chatTurn: false }]);
  });

  it('writes nothing (listeners included) and publishes nothing when the transaction it settles in rolls back', async () => {
    const runId = await waitingRun(kit);
    const decisionId = await decide(runId);
    const rollback = new Error('rolled back on purpose');
    await expect(
      new TransactionRunner(suite.ds).run(async (tx) => {
        const row = await settler.settleIn(
          tx,
          { runId, from: ['WAITING_FOR_APPROVAL'] },
          { kind: 'CANCELLED' },
        );
        expect(row).not.toBeNull();
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect((await rowOf(suite.ds, runId)).status).toBe('WAITING_FOR_APPROVAL');
    expect((await decisionRow(decisionId)).outcome).toBeNull();
    expect(published).toEqual([]);
    // the listener was told inside the transaction, and what it wrote rolled back with it
    expect(told.map((e) => e.runId)).toEqual([runId]);
    expect(await listenerWrote(runId)).toBe(false);
  });

  it('cancels a waiting run and its open decision in one commit, and the inbox hears of it', async () => {
    const runId = await waitingRun(kit);
    const decisionId = await decide(runId);
    expect(
      await settler.settle({ runId, from: ['WAITING_FOR_APPROVAL'] }, { kind: 'CANCELLED' }),
    ).not.toBeNull();
    expect((await decisionRow(decisionId)).outcome).toBe('CANCELLED');
    expect(published.map((p) => p.topic)).toEqual([
      `run.trace.${runId}`,
      `run.progress.${runId}`,
      'inbox.changed',
    ]);
    // a second cancel changes nothing and tells nobody
    published.length = 0;
    expect(await settler.settle({ runId, from: ['WAITING_FOR_APPROVAL'] }, { kind: 'CANCELLED' })).toBeNull();
    expect(published).toEqual([]);
  });

  it('tells nobody when the lease was taken over (fenced out)', async () => {
    const lease = await runningRun(kit);
    const stale = { ...lease, token: randomUUID() };
    expect(
      await settler.settle({ lease: stale }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message: 'x' }),
    ).toBeNull();
    expect((await rowOf(suite.ds, lease.runId)).status).toBe('RUNNING');
    expect(published).toEqual([]);
    expect(told).toEqual([]);
  });

  describe("a segment's own settle", () => {
    const completed = (answer: string) =>
      ({
        kind: 'COMPLETED',
        reason: 'COMPLETED',
        truncated: false,
        storedAnswer: answer,
        answer,
        counters: { iterations: 1, promptTokens: 0, completionTokens: 0 },
      }) as const;

    it('nobody listens: ONE statement outside any transaction stores the run, its kept step and the outcome, announced in order', async () => {
      const quiet = new RunSettlements();
      new DecisionBookkeeping(quiet).onModuleInit();
      quiet.register({
        onRunSettled: () => Promise.reject(new Error('not listening')),
        listensTo: () => Promise.resolve(false),
      });
      const quietSettler = settlerFor(
        kit,
        {
          publish: (topic: string, payload: unknown) =>
            Promise.resolve(void published.push({ topic, payload })),
        },
        quiet,
      );
      const lease = await runningRun(kit);
      const decisionId = await decide(lease.runId);
      const transactions = new TransactionRunner(suite.ds);
      const kept = new KeptSteps(kit.repository, transactions, lease, LEASE_SECONDS, 0);
      kept.keep(step(1) as Step);
      kept.announceWhenStored(1, (sequence) =>
        Promise.resolve(void published.push({ topic: `step ${sequence}`, payload: null })),
      );
      const log = StatementLog.open();
      try {
        expect(await quietSettler.settleSegment(lease, completed('done'), kept, false)).not.toBeNull();
      } finally {
        log.close();
      }
      expect(log.statements).toHaveLength(1);
      expect(log.statements[0]!.text).toMatch(
        /^WITH settled AS \(UPDATE run[\s\S]*INSERT INTO run_step[\s\S]*UPDATE decision d/,
      );
      expect((await rowOf(suite.ds, lease.runId)).status).toBe('COMPLETED');
      expect((await decisionRow(decisionId)).outcome).toBe('COMPLETED');
      const steps = await suite.ds.query('SELECT sequence FROM run_step WHERE run_id = $1', [lease.runId]);
      expect(steps).toEqual([{ sequence: 1 }]);
      // the kept step is announced before the settle, as inside a transaction
      expect(published.map((p) => p.topic)).toEqual([
        'step 1',
        `run.trace.${lease.runId}`,
        `run.progress.${lease.runId}`,
      ]);
    });

    it('a listener that listens (a chat turn, a webhook): the settle and what it writes share one transaction', async () => {
      const lease = await runningRun(kit);
      const decisionId = await decide(lease.runId);
      const kept = new KeptSteps(kit.repository, new TransactionRunner(suite.ds), lease, LEASE_SECONDS, 0);
      const log = StatementLog.open();
      try {
        expect(await settler.settleSegment(lease, completed('done'), kept, false)).not.toBeNull();
      } finally {
        log.close();
      }
      expect(
        log.transactions().map((tx) => tx.map((st) => st.text.split(' ').slice(0, 3).join(' '))),
      ).toEqual([['START TRANSACTION', 'WITH settled AS', 'INSERT INTO worker_heartbeat', 'COMMIT']]);
      expect((await decisionRow(decisionId)).outcome).toBe('COMPLETED');
      expect(await listenerWrote(lease.runId)).toBe(true);
    });
  });
});
