import {
  decide,
  effects,
  expectRefusedUnchanged,
  receiptOf,
  upsertConfiguration,
} from '../support/decisions';
import { startRun, waitForRest } from '../support/runs';
import { itOnPostgres } from '../support/test-database';
import { errorCode, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

const PENDING = `query($id: ID!) { run(id: $id) { status pending { turn turnDigest approvalsRequired
  approvals { kind turn decidedBy { username } } } } }`;
const INBOX = `query { inbox { run { id pending { approvalsRequired approvals { decidedBy { username } } } } } }`;

interface PendingView {
  turn: number;
  turnDigest: string;
  approvalsRequired: number;
  approvals: Array<{ kind: string; turn: number; decidedBy: { username: string } | null }>;
}

/** A scripted editor asking `turns` approvals in a row (one page write each), then answering. */
async function editor(t: TestApp, identifier: string, extra: Record<string, unknown>, turns = 1) {
  const writes = Array.from({ length: turns }, (_, i) => ({
    toolCalls: [{ name: 'pages_update', arguments: { seoTitle: `${identifier} ${i + 1}` } }],
  }));
  return upsertConfiguration(t, {
    identifier,
    privacyLevel: 'FULL',
    providerOptions: { rounds: [...writes, { text: 'Done.' }] },
    ...extra,
  });
}

async function pending(t: TestApp, runId: string, as = 'admin'): Promise<PendingView> {
  const res = await t.gql<{ run: { pending: PendingView | null } }>(PENDING, { id: runId }, as);
  if (!res.data?.run?.pending) throw new Error(`no pending turn: ${JSON.stringify(res.errors)}`);
  return res.data.run.pending;
}

async function waiting(t: TestApp, configurationId: string, pageId: string, workspaceId: number) {
  const run = await startRun(t, 'alice', {
    configurationId,
    prompt: 'SEO',
    subjectPageId: pageId,
    workspaceId,
  });
  expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
  return run.id;
}

async function votes(t: TestApp, runId: string, turn?: number): Promise<number> {
  const [{ n }] = await t.dataSource.query(
    `SELECT count(*)::int AS n FROM approval_vote WHERE run_id = $1 AND ($2::int IS NULL OR turn = $2)`,
    [runId, turn ?? null],
  );
  return n;
}

/** What the quorum left: the decision rows, the APPROVAL steps and the page writes. */
async function outcome(t: TestApp, runId: string) {
  const after = await effects(t, runId);
  return {
    status: after.status,
    decisions: after.decisions,
    approvals: after.kinds.filter((k) => k === 'APPROVAL').length,
    writes: after.kinds.filter((k) => k === 'TOOL_WRITE').length,
  };
}

function quorumSuite(path: 'inline' | 'durable') {
  describe(`quorums (${path} path)`, () => {
    // why: the durable suite runs a worker in this instance, so decisions are recorded for it.
    const { t, ids } = useTestApp({ DECISION_PATH: path, RATE_LIMIT_PER_MINUTE: '1000000' });
    let two: string;
    let three: string;
    let workspace = path === 'inline' ? 100 : 500;
    const nextWorkspace = () => ++workspace;
    beforeAll(async () => {
      two = await editor(t, `quorum-two-${path}`, { requiredApprovals: 2 });
      three = await editor(t, `quorum-three-${path}`, { requiredApprovals: 3 });
    });

    it('the first approval is a vote: the run waits, shows "1 of 2", the second continues it once', async () => {
      const runId = await waiting(t, two, ids.pages.Widget!, nextWorkspace());
      const first = await pending(t, runId);
      expect(first).toMatchObject({ approvalsRequired: 2, approvals: [] });
      const vote = await decide(t, 'approve', 'bob', {
        runId,
        turnDigest: first.turnDigest,
        idempotencyKey: 'b1',
      });
      expect(receiptOf(vote)).toMatchObject({
        decision: { kind: 'APPROVE', decidedBy: { username: 'bob' } },
      });
      expect(receiptOf(vote).run.status).toBe('WAITING_FOR_APPROVAL');
      expect((await pending(t, runId)).approvals).toEqual([
        { kind: 'APPROVE', turn: first.turn, decidedBy: { username: 'bob' } },
      ]);
      const inbox = await t.gql<{ inbox: Array<{ run: { id: string; pending: any } }> }>(INBOX, {}, 'carol');
      expect(inbox.data!.inbox.find((i) => i.run.id === runId)!.run.pending).toEqual({
        approvalsRequired: 2,
        approvals: [{ decidedBy: { username: 'bob' } }],
      });
      // the same key again: the same receipt, nothing more written
      const replay = await decide(t, 'approve', 'bob', {
        runId,
        turnDigest: first.turnDigest,
        idempotencyKey: 'b1',
      });
      expect(receiptOf(replay).decision.id).toBe(receiptOf(vote).decision.id);
      // the same person again: ALREADY_VOTED, nothing written
      const before = await effects(t, runId);
      const again = await decide(t, 'approve', 'bob', { runId, turnDigest: first.turnDigest });
      await expectRefusedUnchanged(t, again, 'ALREADY_VOTED', runId, before);
      expect(await votes(t, runId)).toBe(1);
      const second = await decide(t, 'approve', 'carol', { runId, turnDigest: first.turnDigest });
      expect(receiptOf(second).path).toBe(path === 'inline' ? 'INLINE' : 'DURABLE');
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect(await outcome(t, runId)).toEqual({ status: 'COMPLETED', decisions: 1, approvals: 1, writes: 1 });
      expect(await votes(t, runId)).toBe(2);
    });

    itOnPostgres(
      '64 concurrent votes on a quorum of 3, 5 times: one continuation, three counted votes',
      async () => {
        const voters = ['admin', 'alice', 'bob', 'carol'];
        for (let round = 0; round < 5; round++) {
          const runId = await waiting(t, three, ids.pages.Widget!, nextWorkspace());
          const { turnDigest } = await pending(t, runId);
          const results = await Promise.all(
            Array.from({ length: 64 }, (_, i) => decide(t, 'approve', voters[i % 4]!, { runId, turnDigest })),
          );
          const codes = results.filter((r) => r.errors).map((r) => errorCode(r));
          // why: a vote that arrives once the continuation has finished finds the run no longer
          // waiting (inline, the continuation can end before the last of the 64 arrive).
          const late = ['ALREADY_VOTED', 'ALREADY_RESUMING', 'RUN_NOT_WAITING'];
          expect(codes.filter((c) => !late.includes(String(c)))).toEqual([]);
          const continued = results.filter(
            (r) => !r.errors && receiptOf(r).run.status !== 'WAITING_FOR_APPROVAL',
          );
          expect({ runId, continued: continued.length }).toEqual({ runId, continued: 1 });
          expect(await waitForRest(t, runId, 30_000)).toBe('COMPLETED');
          expect({ runId, ...(await outcome(t, runId)), votes: await votes(t, runId) }).toEqual({
            runId,
            status: 'COMPLETED',
            decisions: 1,
            approvals: 1,
            writes: 1,
            votes: 3,
          });
        }
      },
      120_000,
    );

    itOnPostgres(
      'a completing vote racing denials on the same run settles at once: one decision',
      async () => {
        for (let round = 0; round < 12; round++) {
          const runId = await waiting(t, two, ids.pages.Launch!, nextWorkspace());
          const { turnDigest } = await pending(t, runId);
          await decide(t, 'approve', 'bob', { runId, turnDigest });
          const started = Date.now();
          const results = await Promise.all([
            decide(t, 'approve', 'carol', { runId, turnDigest }),
            ...Array.from({ length: 16 }, () => decide(t, 'deny', 'admin', { runId, turnDigest })),
          ]);
          // why: the completing vote claims inside its vote's transaction, holding the run's row
          // lock; queued in this process behind a denial that waits for that lock, each would
          // wait for the other until PostgreSQL ends the idle transaction (the run's lease).
          expect(Date.now() - started).toBeLessThan(10_000);
          const codes = results.filter((r) => r.errors).map((r) => String(errorCode(r)));
          expect(codes.filter((c) => !['ALREADY_RESUMING', 'RUN_NOT_WAITING'].includes(c))).toEqual([]);
          const won = results.filter((r) => !r.errors && receiptOf(r).run.status !== 'WAITING_FOR_APPROVAL');
          expect({ runId, won: won.length }).toEqual({ runId, won: 1 });
          expect(await waitForRest(t, runId, 30_000)).toBe('COMPLETED');
          expect((await outcome(t, runId)).decisions).toBe(1);
        }
      },
      120_000,
    );

    it('one denial ends the turn as a denial, whatever votes came before', async () => {
      const runId = await waiting(t, two, ids.pages.Launch!, nextWorkspace());
      const { turnDigest } = await pending(t, runId);
      expect(receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest })).run.status).toBe(
        'WAITING_FOR_APPROVAL',
      );
      expect(receiptOf(await decide(t, 'deny', 'carol', { runId, turnDigest })).decision.kind).toBe('DENY');
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect(await outcome(t, runId)).toEqual({ status: 'COMPLETED', decisions: 1, approvals: 1, writes: 0 });
    });

    it('votes of an earlier turn do not count toward the next one', async () => {
      const twoTurns = await editor(t, `quorum-turns-${path}`, { requiredApprovals: 2 }, 2);
      const runId = await waiting(t, twoTurns, ids.pages.About!, nextWorkspace());
      const first = await pending(t, runId);
      await decide(t, 'approve', 'bob', { runId, turnDigest: first.turnDigest });
      await decide(t, 'approve', 'carol', { runId, turnDigest: first.turnDigest });
      expect(await waitForRest(t, runId)).toBe('WAITING_FOR_APPROVAL');
      const next = await pending(t, runId);
      expect(next.turn).toBe(first.turn + 1);
      expect(next.approvals).toEqual([]);
      const vote = await decide(t, 'approve', 'bob', { runId, turnDigest: next.turnDigest });
      expect(receiptOf(vote).run.status).toBe('WAITING_FOR_APPROVAL');
      expect((await pending(t, runId)).approvals.map((a) => a.decidedBy!.username)).toEqual(['bob']);
      expect(await votes(t, runId, next.turn)).toBe(1);
      await decide(t, 'approve', 'admin', { runId, turnDigest: next.turnDigest });
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect(await outcome(t, runId)).toEqual({ status: 'COMPLETED', decisions: 2, approvals: 2, writes: 2 });
    });

    it('four-eyes still excludes the initiator from the quorum', async () => {
      const fourEyes = await editor(t, `quorum-four-eyes-${path}`, {
        requiredApprovals: 2,
        requireSecondApprover: true,
      });
      const runId = await waiting(t, fourEyes, ids.pages.Widget!, nextWorkspace());
      const { turnDigest } = await pending(t, runId);
      const before = await effects(t, runId);
      const own = await decide(t, 'approve', 'alice', { runId, turnDigest });
      await expectRefusedUnchanged(t, own, 'SELF_APPROVAL_DENIED', runId, before);
      expect(await votes(t, runId)).toBe(0);
    });
  });
}

quorumSuite('inline');
quorumSuite('durable');
