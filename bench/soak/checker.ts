import { checkAll, type Check } from '../support/report';
import type { DecisionFact, DecisionStepFact, Facts, RunFact } from './facts';
import { checkExpiries, checkQuorums } from './quorum-checks';
import { checkDigests, checkFourEyes, checkIdempotency } from './request-checks';
import type { HistoryEntry, ProcessEntry, RequestEntry } from './history';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const MOVING = new Set(['QUEUED', 'RUNNING', 'DECISION_RECORDED']);
/** Codes no answer may carry: a fault, not a refusal. */
const FAULTS = new Set(['INTERNAL_SERVER_ERROR', 'NO_CODE', 'NO_JSON']);

/** What became of a decision, after quiescence. */
export type Fate =
  /** Its APPROVAL / INPUT step is recorded and the run moved past its turn. */
  | 'carried out'
  /** A worker handed it back (`handed_back_code`): the run waits again. */
  | 'handed back'
  /** The run was cancelled before the decision's step was recorded. */
  | 'cancelled first'
  /** The run failed (the reaper: retries exhausted) before the decision's step was recorded. */
  | 'failed first'
  /** None of the above: an acknowledged decision that nobody carried out or handed back. */
  | 'lost';

/** The facts and the history, indexed for the checks. */
export interface Indexed {
  readonly facts: Facts;
  readonly runs: ReadonlyMap<string, RunFact>;
  /** `${runId}:${turn}` -> APPROVAL / INPUT steps of that turn. */
  readonly decisionSteps: ReadonlyMap<string, DecisionStepFact>;
  readonly decisions: ReadonlyMap<string, DecisionFact>;
  /** Ids of quorum votes: a vote's receipt names it, and only the completing vote is a decision. */
  readonly voteIds: ReadonlySet<string>;
  readonly requests: readonly RequestEntry[];
  readonly kills: readonly ProcessEntry[];
}

export function index(facts: Facts, history: readonly HistoryEntry[]): Indexed {
  return {
    facts,
    runs: new Map(facts.runs.map((r) => [r.id, r])),
    decisionSteps: new Map(facts.decisionSteps.map((s) => [`${s.runId}:${s.turn}`, s])),
    decisions: new Map(facts.decisions.map((d) => [d.id, d])),
    voteIds: new Set(facts.votes.map((v) => v.id)),
    requests: history.filter((e): e is RequestEntry => e.type === 'request'),
    kills: history.filter((e): e is ProcessEntry => e.type === 'process' && e.event === 'kill'),
  };
}

export function fateOf(d: DecisionFact, run: RunFact | undefined, steps: DecisionStepFact | undefined): Fate {
  if (d.handedBackCode !== null) return 'handed back';
  if (!run) return 'lost';
  const stepped = (steps?.count ?? 0) > 0;
  if (stepped && (TERMINAL.has(run.status) || run.turn > d.turn)) return 'carried out';
  if (!stepped && run.status === 'CANCELLED') return 'cancelled first';
  if (!stepped && run.status === 'FAILED') return 'failed first';
  return 'lost';
}

/**
 * Decision ids the API acknowledged (a receipt came back), with the requests that got them. A
 * vote that did not complete its quorum is no decision (checkQuorums counts votes).
 */
export function acknowledged(ix: Indexed): Map<string, RequestEntry[]> {
  const out = new Map<string, RequestEntry[]>();
  for (const e of ix.requests) {
    if (!e.receipt) continue;
    if (ix.voteIds.has(e.receipt.decisionId) && !ix.decisions.has(e.receipt.decisionId)) continue;
    out.set(e.receipt.decisionId, [...(out.get(e.receipt.decisionId) ?? []), e]);
  }
  return out;
}

/** Invariant: every acknowledged decision was carried out or handed back (or its run ended first). */
export function checkAcknowledged(ix: Indexed): Check {
  const acked = acknowledged(ix);
  const problems: string[] = [];
  for (const [id, entries] of acked) {
    const d = ix.decisions.get(id);
    const e = entries[0]!;
    if (!d) {
      problems.push(`decision ${id} (run ${e.runId}) acknowledged but not recorded`);
      continue;
    }
    if (d.runId !== e.runId || d.turn !== e.receipt!.turn || d.kind !== e.receipt!.kind) {
      problems.push(
        `decision ${id}: receipt says run ${e.runId} turn ${e.receipt!.turn}, record says ${d.runId} turn ${d.turn}`,
      );
    }
    problems.push(...lostProblems(ix, d, 'acknowledged'));
  }
  // why: a decision whose receipt was lost (its API instance died) must not be stuck either.
  for (const d of ix.facts.decisions)
    if (!acked.has(d.id)) problems.push(...lostProblems(ix, d, 'not acknowledged'));
  return checkAll(
    'every acknowledged decision carried out (run past its turn) or handed back',
    ix.facts.decisions.length,
    problems,
  );
}

function lostProblems(ix: Indexed, d: DecisionFact, how: string): string[] {
  const run = ix.runs.get(d.runId);
  if (fateOf(d, run, ix.decisionSteps.get(`${d.runId}:${d.turn}`)) !== 'lost') return [];
  const stepped = (ix.decisionSteps.get(`${d.runId}:${d.turn}`)?.count ?? 0) > 0;
  return [
    `${how} ${d.kind} ${d.id} on run ${d.runId} turn ${d.turn}: run ${run?.status ?? 'missing'} at turn ${run?.turn}, ` +
      `decision step ${stepped ? 'recorded' : 'missing'}`,
  ];
}

/**
 * Outcome on record for every decision carried out (Decision.outcome). Whatever settles the run
 * (its continuation, a worker, the reaper, a cancel) writes the outcome in the same statement,
 * so no process killed at any point can leave it missing.
 */
export function checkOutcomes(ix: Indexed): Check {
  const problems: string[] = [];
  let carried = 0;
  for (const d of ix.facts.decisions) {
    const run = ix.runs.get(d.runId);
    if (fateOf(d, run, ix.decisionSteps.get(`${d.runId}:${d.turn}`)) !== 'carried out') continue;
    carried++;
    if (d.outcome === null)
      problems.push(`${d.kind} ${d.id} on run ${d.runId} turn ${d.turn}: run ${run!.status}, outcome NULL`);
  }
  return checkAll('every decision carried out has its outcome recorded', carried, problems);
}

/** Invariant: at most one continuation per turn (decisions, decision steps, writes). */
export function checkOneContinuation(ix: Indexed): Check {
  const problems: string[] = [];
  const open = new Map<string, number>();
  for (const d of ix.facts.decisions) {
    if (d.handedBackCode !== null) continue;
    const key = `${d.runId}:${d.turn}`;
    open.set(key, (open.get(key) ?? 0) + 1);
  }
  for (const [key, n] of open) if (n > 1) problems.push(`run:turn ${key}: ${n} decisions not handed back`);
  for (const s of ix.facts.decisionSteps) {
    if (s.count > 1) problems.push(`run:turn ${s.runId}:${s.turn}: ${s.count} APPROVAL/INPUT steps`);
  }
  problems.push(...writeProblems(ix), ...receiptProblems(ix));
  return checkAll('at most one continuation per turn', ix.facts.decisionSteps.length, problems);
}

/** TOOL_WRITE steps and page writes: never more than the approvals carried out. */
function writeProblems(ix: Indexed): string[] {
  const problems: string[] = [];
  const approvals = new Map<string, number>();
  for (const s of ix.facts.decisionSteps) approvals.set(s.runId, (approvals.get(s.runId) ?? 0) + s.approvals);
  const byWorkspace = new Map<number, { approvals: number; toolWrites: number }>();
  const toolWrites = new Map(ix.facts.stepLogs.map((l) => [l.runId, l.toolWrites]));
  for (const run of ix.facts.runs) {
    const a = approvals.get(run.id) ?? 0;
    const w = toolWrites.get(run.id) ?? 0;
    if (w > a) problems.push(`run ${run.id}: ${w} TOOL_WRITE steps for ${a} approved turns`);
    const ws = byWorkspace.get(run.workspaceId) ?? { approvals: 0, toolWrites: 0 };
    byWorkspace.set(run.workspaceId, { approvals: ws.approvals + a, toolWrites: ws.toolWrites + w });
  }
  for (const p of ix.facts.pageWrites) {
    const ws = byWorkspace.get(p.workspaceId) ?? { approvals: 0, toolWrites: 0 };
    if (p.writes > ws.approvals) {
      problems.push(`workspace ${p.workspaceId}: ${p.writes} page writes for ${ws.approvals} approved turns`);
    }
  }
  return problems;
}

/** Two receipts for one turn with different decisions, neither handed back. */
function receiptProblems(ix: Indexed): string[] {
  const byTurn = new Map<string, Set<string>>();
  for (const [id, entries] of acknowledged(ix)) {
    const key = `${entries[0]!.runId}:${entries[0]!.receipt!.turn}`;
    if (ix.decisions.get(id)?.handedBackCode) continue;
    byTurn.set(key, new Set([...(byTurn.get(key) ?? []), id]));
  }
  return [...byTurn]
    .filter(([, ids]) => ids.size > 1)
    .map(([key, ids]) => `run:turn ${key}: ${ids.size} receipts`);
}

/**
 * Every TOOL_WRITE step stands for a page write that happened, in workspaces of one run. (In a
 * shared workspace an approved update may find its value already written by another run: no
 * row changes, but the tool still records its TOOL_WRITE step.)
 */
export function checkWritesRecorded(ix: Indexed): Check {
  const writes = new Map(ix.facts.pageWrites.map((p) => [p.workspaceId, p.writes]));
  const toolWrites = new Map(ix.facts.stepLogs.map((l) => [l.runId, l.toolWrites]));
  const runsIn = new Map<number, RunFact[]>();
  for (const run of ix.facts.runs) runsIn.set(run.workspaceId, [...(runsIn.get(run.workspaceId) ?? []), run]);
  const own = [...runsIn]
    .filter(([, runs]) => runs.length === 1)
    .map(([ws, runs]) => [ws, runs[0]!] as const);
  const problems = own.flatMap(([ws, run]) => {
    const steps = toolWrites.get(run.id) ?? 0;
    const written = writes.get(ws) ?? 0;
    return steps > written
      ? [`run ${run.id} (workspace ${ws}): ${steps} TOOL_WRITE steps, ${written} page writes`]
      : [];
  });
  return checkAll(
    'every TOOL_WRITE step has its page write (runs with a workspace of their own)',
    own.length,
    problems,
  );
}

/** Invariant: step sequences 1..n with no gap, `step_count` = rows. */
export function checkStepLogs(ix: Indexed): Check {
  const logs = new Map(ix.facts.stepLogs.map((l) => [l.runId, l]));
  const problems: string[] = [];
  for (const run of ix.facts.runs) {
    const l = logs.get(run.id) ?? { rows: 0, maxSequence: 0, distinctSequences: 0 };
    if (l.rows !== run.stepCount || l.distinctSequences !== l.rows || (l.maxSequence ?? 0) !== l.rows) {
      problems.push(
        `run ${run.id}: step_count ${run.stepCount}, ${l.rows} rows, ${l.distinctSequences} distinct, max ${l.maxSequence}`,
      );
    }
  }
  return checkAll('step sequences 1..n without gaps, step_count = rows', ix.facts.runs.length, problems);
}

/** Invariant: no run RUNNING without a live lease (sampled during the soak; none RUNNING after). */
export function checkLeases(ix: Indexed, history: readonly HistoryEntry[], graceSeconds: number): Check {
  const problems: string[] = [];
  for (const run of ix.facts.runs) {
    if (run.status !== 'RUNNING') continue;
    problems.push(
      `after quiescence: run ${run.id} RUNNING (${run.claimedBy ?? 'no claim'}, lease ${run.leaseLive ? 'live' : 'expired or none'})`,
    );
  }
  for (const e of history) {
    if (e.type !== 'lease') continue;
    problems.push(
      e.problem === 'no lease'
        ? `at ${(e.t / 1000).toFixed(1)} s: run ${e.runId} RUNNING without a lease`
        : `at ${(e.t / 1000).toFixed(1)} s: run ${e.runId} RUNNING, lease expired ${e.expiredForSeconds?.toFixed(1)} s ago (> ${graceSeconds} s)`,
    );
  }
  return checkAll('no run RUNNING without a live lease', ix.facts.runs.length, problems);
}

/** After the chaos every run came to rest (waiting or finished). */
export function checkQuiescence(ix: Indexed, waitedSeconds: number): Check {
  const moving = ix.facts.runs.filter((r) => MOVING.has(r.status));
  return checkAll(
    `every run at rest after the chaos (waited ${waitedSeconds.toFixed(1)} s)`,
    ix.facts.runs.length,
    moving.map(
      (r) =>
        `run ${r.id} still ${r.status} (${r.claimedBy ?? 'unclaimed'}, lease ${r.leaseLive ? 'live' : 'expired or none'})`,
    ),
  );
}

/** Every request got an answer without a fault; no answer only where its process was killed. */
export function checkAnswers(ix: Indexed): Check {
  const killed = new Set(ix.kills.map((k) => k.pid));
  const problems: string[] = [];
  for (const e of ix.requests) {
    if (e.transport !== null) {
      if (!killed.has(e.pid))
        problems.push(`#${e.seq} ${e.op} to ${e.target} (pid ${e.pid}, alive): ${e.transport}`);
      continue;
    }
    const faults = e.codes.filter((c) => FAULTS.has(c));
    if ((e.status ?? 0) >= 500 || faults.length > 0) {
      problems.push(`#${e.seq} ${e.op} (${e.intent}): HTTP ${e.status} ${e.codes.join(',')}`);
    }
  }
  return checkAll(
    'every request answered with data or a coded refusal (no answer only from a killed process)',
    ix.requests.length,
    problems,
  );
}

/** A decision step this long after its configuration was switched off means it skipped check 6. */
export const INACTIVE_SLACK_MS = 2_000;

/** No decision carried out while its configuration was inactive (checks 5-6 before anything executes). */
export function checkInactive(ix: Indexed, history: readonly HistoryEntry[]): Check {
  const windows: Array<{ identifier: string; from: number; to: number }> = [];
  for (const e of history) {
    if (e.type !== 'configuration') continue;
    if (!e.active) windows.push({ identifier: e.identifier, from: e.atMs, to: Infinity });
    else {
      const open = windows.findLast((w) => w.identifier === e.identifier && w.to === Infinity);
      if (open) open.to = e.atMs;
    }
  }
  const problems = ix.facts.decisionStepTimes.flatMap((s) => {
    const w = windows.find(
      (w) => w.identifier === s.configuration && s.atMs > w.from + INACTIVE_SLACK_MS && s.atMs < w.to,
    );
    return w
      ? [
          `run ${s.runId} turn ${s.turn}: decision step ${((s.atMs - w.from) / 1000).toFixed(1)} s into an inactive window of ${s.configuration}`,
        ]
      : [];
  });
  return checkAll(
    `no decision carried out while its configuration was inactive (${windows.length} windows)`,
    ix.facts.decisionStepTimes.length,
    problems,
  );
}

/** Every check of the soak, in the order they are printed. */
export function checkSoak(
  facts: Facts,
  history: readonly HistoryEntry[],
  quiescence: { waitedSeconds: number; graceSeconds: number },
): Check[] {
  const ix = index(facts, history);
  return [
    checkQuiescence(ix, quiescence.waitedSeconds),
    checkOneContinuation(ix),
    checkAcknowledged(ix),
    checkStepLogs(ix),
    checkLeases(ix, history, quiescence.graceSeconds),
    checkOutcomes(ix),
    checkWritesRecorded(ix),
    checkDigests(ix),
    checkIdempotency(ix),
    checkFourEyes(ix),
    checkQuorums(ix),
    checkExpiries(ix),
    checkInactive(ix, history),
    checkAnswers(ix),
  ];
}

/** How many decisions met each fate (the summary). */
export function fates(facts: Facts, history: readonly HistoryEntry[]): Record<Fate, number> {
  const ix = index(facts, history);
  const out: Record<Fate, number> = {
    'carried out': 0,
    'handed back': 0,
    'cancelled first': 0,
    'failed first': 0,
    lost: 0,
  };
  for (const d of facts.decisions)
    out[fateOf(d, ix.runs.get(d.runId), ix.decisionSteps.get(`${d.runId}:${d.turn}`))]++;
  return out;
}
