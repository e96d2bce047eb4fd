import { checkSoak, fateOf, fates, INACTIVE_SLACK_MS } from './checker';
import type { DecisionFact, Facts, RunFact } from './facts';
import type { HistoryEntry, RequestEntry } from './history';

const RUN = 'run-1';
const DIGEST = 'd'.repeat(64);

function run(over: Partial<RunFact> = {}): RunFact {
  return {
    id: RUN,
    status: 'COMPLETED',
    turn: 1,
    stepCount: 6,
    hasLease: false,
    leaseLive: false,
    claimedBy: null,
    handBackCode: null,
    terminationReason: 'COMPLETED',
    workspaceId: 1000,
    ownerId: 2,
    configuration: 'demo-editor',
    fourEyes: false,
    ...over,
  };
}

function decision(over: Partial<DecisionFact> = {}): DecisionFact {
  return {
    id: 'dec-1',
    runId: RUN,
    turn: 1,
    kind: 'APPROVE',
    decidedBy: 4,
    turnDigest: DIGEST,
    path: 'DURABLE',
    idempotencyKey: null,
    handedBackCode: null,
    outcome: 'COMPLETED',
    ...over,
  };
}

/** One demo-editor run, approved once by carol and carried out: every invariant holds. */
function facts(over: Partial<Facts> = {}): Facts {
  return {
    runs: [run()],
    stepLogs: [{ runId: RUN, rows: 6, maxSequence: 6, distinctSequences: 6, toolWrites: 1 }],
    decisionSteps: [{ runId: RUN, turn: 1, count: 1, approvals: 1 }],
    decisionStepTimes: [{ runId: RUN, turn: 1, configuration: 'demo-editor', atMs: 1_000_000 }],
    decisions: [decision()],
    pageWrites: [{ workspaceId: 1000, writes: 1 }],
    votes: [],
    users: { alice: 2, carol: 4 },
    ...over,
  };
}

let seq = 0;
function request(over: Partial<RequestEntry> = {}): RequestEntry {
  seq++;
  return {
    type: 'request',
    seq,
    t: seq * 10,
    ms: 5,
    lane: 1,
    op: 'approveRun',
    target: 'api-1',
    pid: 100,
    user: 'carol',
    runId: RUN,
    variables: { input: { runId: RUN, turnDigest: DIGEST } },
    intent: 'single',
    group: null,
    stale: false,
    status: 200,
    transport: null,
    codes: [],
    receipt: {
      decisionId: 'dec-1',
      kind: 'APPROVE',
      turn: 1,
      path: 'DURABLE',
      runStatus: 'DECISION_RECORDED',
    },
    runStatus: 'DECISION_RECORDED',
    pending: null,
    ...over,
  };
}

const history = (...extra: HistoryEntry[]): HistoryEntry[] => [request(), ...extra];
const QUIET = { waitedSeconds: 0.5, graceSeconds: 20 };

/** The names of the checks that failed. */
function failed(f: Facts, h: readonly HistoryEntry[]): string[] {
  return checkSoak(f, h, QUIET)
    .filter((c) => !c.ok)
    .map((c) => c.name);
}

describe('the soak checker', () => {
  it('passes a history whose every invariant holds', () => {
    expect(failed(facts(), history())).toEqual([]);
  });

  it('fails a second continuation of one turn: two decisions, two APPROVAL steps, a write too many', () => {
    const two = facts({
      decisions: [decision(), decision({ id: 'dec-2', decidedBy: 1 })],
      decisionSteps: [{ runId: RUN, turn: 1, count: 2, approvals: 2 }],
      pageWrites: [{ workspaceId: 1000, writes: 3 }],
    });
    expect(failed(two, history())).toContain('at most one continuation per turn');
    const writes = facts({ pageWrites: [{ workspaceId: 1000, writes: 2 }] });
    expect(failed(writes, history())).toEqual(['at most one continuation per turn']);
    const steps = facts({
      stepLogs: [{ runId: RUN, rows: 6, maxSequence: 6, distinctSequences: 6, toolWrites: 2 }],
    });
    expect(failed(steps, history())).toContain('at most one continuation per turn');
  });

  it('fails two receipts for two different decisions of one turn, neither handed back', () => {
    const h = history(
      request({
        user: 'bob',
        receipt: { decisionId: 'dec-x', kind: 'APPROVE', turn: 1, path: 'INLINE', runStatus: 'RUNNING' },
      }),
    );
    expect(failed(facts(), h)).toContain('at most one continuation per turn');
  });

  it('fails an acknowledged decision that was neither carried out nor handed back', () => {
    const waiting = facts({
      runs: [run({ status: 'WAITING_FOR_APPROVAL', terminationReason: null, stepCount: 4 })],
      stepLogs: [{ runId: RUN, rows: 4, maxSequence: 4, distinctSequences: 4, toolWrites: 0 }],
      decisionSteps: [],
      decisionStepTimes: [],
      decisions: [decision({ outcome: null })],
      pageWrites: [],
    });
    expect(failed(waiting, history())).toEqual([
      'every acknowledged decision carried out (run past its turn) or handed back',
    ]);
    const unrecorded = facts({ decisions: [] });
    expect(failed(unrecorded, history())).toContain(
      'every acknowledged decision carried out (run past its turn) or handed back',
    );
  });

  it('accepts a decision handed back, and a run cancelled before the decision was carried out', () => {
    const handedBack = facts({
      runs: [
        run({
          status: 'WAITING_FOR_APPROVAL',
          terminationReason: null,
          stepCount: 4,
          handBackCode: 'STALE_TURN',
        }),
      ],
      stepLogs: [{ runId: RUN, rows: 4, maxSequence: 4, distinctSequences: 4, toolWrites: 0 }],
      decisionSteps: [],
      decisionStepTimes: [],
      decisions: [decision({ handedBackCode: 'STALE_TURN', outcome: null })],
      pageWrites: [],
    });
    expect(failed(handedBack, history())).toEqual([]);
    const d = decision({ outcome: 'CANCELLED' });
    expect(fateOf(d, run({ status: 'CANCELLED' }), undefined)).toBe('cancelled first');
    expect(fates(handedBack, history())).toMatchObject({ 'handed back': 1, lost: 0 });
  });

  it('fails a gap in a step log, and a step_count that is not the number of rows', () => {
    const gap = facts({
      stepLogs: [{ runId: RUN, rows: 6, maxSequence: 7, distinctSequences: 6, toolWrites: 1 }],
    });
    expect(failed(gap, history())).toEqual(['step sequences 1..n without gaps, step_count = rows']);
    const count = facts({ runs: [run({ stepCount: 5 })] });
    expect(failed(count, history())).toEqual(['step sequences 1..n without gaps, step_count = rows']);
  });

  it('fails a run RUNNING after quiescence, and one seen RUNNING without a live lease during the soak', () => {
    const stuck = facts({
      runs: [run({ status: 'RUNNING', hasLease: true, leaseLive: false, claimedBy: 'worker:x:1' })],
    });
    expect(failed(stuck, history())).toEqual(
      expect.arrayContaining([
        'no run RUNNING without a live lease',
        expect.stringMatching(/^every run at rest/),
      ]),
    );
    const seen = history({
      type: 'lease',
      seq: 99,
      t: 5000,
      runId: RUN,
      claimedBy: null,
      problem: 'no lease',
      expiredForSeconds: null,
    });
    expect(failed(facts(), seen)).toEqual(['no run RUNNING without a live lease']);
  });

  it('fails a decision carried out without its outcome, a cancelled run and a lost cancel included', () => {
    expect(failed(facts({ decisions: [decision({ outcome: null })] }), history())).toEqual([
      'every decision carried out has its outcome recorded',
    ]);
    const cancelled = facts({
      runs: [run({ status: 'CANCELLED' })],
      decisions: [decision({ outcome: null })],
    });
    const cancel = (over: Partial<RequestEntry>) =>
      request({
        op: 'cancelRun',
        receipt: null,
        variables: { id: RUN },
        intent: 'cancel',
        pid: 300,
        ...over,
      });
    const answered = cancel({ runStatus: 'CANCELLED' });
    expect(failed(cancelled, history(answered))).toEqual([
      'every decision carried out has its outcome recorded',
    ]);
    // why: the cancel writes the outcome in its own statement; a lost answer excuses nothing.
    const killed: HistoryEntry = { type: 'process', seq: 90, t: 1, event: 'kill', member: 'api-2', pid: 300 };
    const lost = cancel({ status: null, transport: 'ECONNRESET', runStatus: null });
    expect(failed(cancelled, history(killed, lost))).toEqual([
      'every decision carried out has its outcome recorded',
    ]);
    expect(failed(facts({ runs: [run({ status: 'CANCELLED' })] }), history(killed, lost))).toEqual([]);
  });

  it('fails a TOOL_WRITE step without its page write in a workspace of one run', () => {
    expect(failed(facts({ pageWrites: [] }), history())).toEqual([
      'every TOOL_WRITE step has its page write (runs with a workspace of their own)',
    ]);
  });

  it('fails a stale digest acknowledged, and a receipt for another digest than the one sent', () => {
    const stale = [request({ stale: true, intent: 'stale digest' })];
    expect(failed(facts(), stale)).toEqual([
      'no made-up digest acknowledged; every receipt is for the digest sent',
    ]);
    const other = [request({ variables: { input: { runId: RUN, turnDigest: 'e'.repeat(64) } } })];
    expect(failed(facts(), other)).toEqual([
      'no made-up digest acknowledged; every receipt is for the digest sent',
    ]);
  });

  it('fails one idempotency key answered with two decisions', () => {
    const input = { runId: RUN, turnDigest: DIGEST, idempotencyKey: 'k1' };
    const h = [
      request({ variables: { input } }),
      request({
        variables: { input },
        receipt: {
          decisionId: 'dec-2',
          kind: 'APPROVE',
          turn: 1,
          path: 'DURABLE',
          runStatus: 'DECISION_RECORDED',
        },
      }),
    ];
    const f = facts({
      decisions: [decision(), decision({ id: 'dec-2', handedBackCode: 'STALE_TURN', outcome: null })],
    });
    expect(failed(f, h)).toEqual([
      'one idempotency key, one decision (double clicks and replays get the first receipt)',
    ]);
  });

  it('fails an approval by the initiator of a four-eyes run', () => {
    const f = facts({ runs: [run({ fourEyes: true })], decisions: [decision({ decidedBy: 2 })] });
    expect(failed(f, history())).toEqual(['four-eyes runs never approved by their initiator']);
  });

  it('fails a decision step recorded well inside a window where its configuration was inactive', () => {
    const off = 1_000_000 - INACTIVE_SLACK_MS - 500;
    const windows: HistoryEntry[] = [
      { type: 'configuration', seq: 50, t: 1, identifier: 'demo-editor', active: false, atMs: off },
      {
        type: 'configuration',
        seq: 51,
        t: 2,
        identifier: 'demo-editor',
        active: true,
        atMs: 1_000_000 + 1000,
      },
    ];
    expect(failed(facts(), history(...windows))).toEqual([
      'no decision carried out while its configuration was inactive (1 windows)',
    ]);
    const justBefore: HistoryEntry[] = [
      { ...windows[0]!, atMs: 1_000_000 - 100 } as HistoryEntry,
      windows[1]!,
    ];
    expect(failed(facts(), history(...justBefore))).toEqual([]);
  });

  it('fails a fault answer, and no answer from a process that was not killed', () => {
    const fault = [request({ receipt: null, status: 200, codes: ['INTERNAL_SERVER_ERROR'] })];
    const answers =
      'every request answered with data or a coded refusal (no answer only from a killed process)';
    expect(failed(facts(), [...history(), ...fault])).toEqual([answers]);
    const lost = request({ op: 'readRun', receipt: null, status: null, transport: 'ECONNRESET', pid: 200 });
    expect(failed(facts(), [...history(), lost])).toEqual([answers]);
    const killed: HistoryEntry = { type: 'process', seq: 77, t: 1, event: 'kill', member: 'api-2', pid: 200 };
    expect(failed(facts(), [...history(), killed, lost])).toEqual([]);
  });
});
