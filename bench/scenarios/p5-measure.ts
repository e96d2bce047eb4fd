// P5's measurements: a scripted run end to end, the commit baseline, and the repository's
// step write alone (to split a step's cost between the database write and the loop around it).
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { RunSettlingRepository } from '../../src/modules/runs/persistence/run-settling.repository';
import { RunsRepository } from '../../src/modules/runs/persistence/runs.repository';
import { bootApp, type BenchApp } from '../support/app';
import { CommitBaseline, type CommitBatch } from '../support/baseline';
import { rawClient } from '../support/pg';
import type { BenchDatabase } from '../support/database';
import { readRounds, upsertScriptedConfiguration, type PrivacyLevel } from '../support/fixtures';
import { startRun, stepLog, stepLogProblems, waitForRest, type StepRow } from '../support/runs';
import { msSince } from '../support/stats';
import { WalProbe, type WalSpan } from '../support/wal';

/** A kind of run P5 measures: this many read rounds at this privacy level. */
export interface Variant {
  readonly rounds: number;
  readonly privacy: PrivacyLevel;
}

export const variantKey = (v: Variant): string => `${v.privacy}-${v.rounds}`;

/** One measured run. */
export interface RunSample extends Variant {
  readonly rep: number;
  readonly runId: string;
  readonly steps: number;
  /** started_at .. finished_at of the run row (server clock). */
  readonly serverMs: number;
  /** HTTP startRun sent .. COMPLETED seen by the poll. */
  readonly clientMs: number;
  /** CPU time of this Node process (app and bench client) during the run. */
  readonly cpuMs: number;
  readonly wal: WalSpan;
  /** WAL of each step's own transaction, by sequence (null without pg_walinspect). */
  readonly stepWal: Array<number | null>;
  /** Time from the previous step (the run's start for the first), by sequence. */
  readonly stepGapMs: number[];
  readonly stepKinds: string[];
  readonly problems: string[];
}

export type MeasuredBatch = CommitBatch & { readonly wal: WalSpan; readonly cpuMs: number };

/** One repetition's references: one-row commits (UPDATE, INSERT) and bare step writes. */
export interface BaselineSample {
  readonly rep: number;
  readonly update: MeasuredBatch;
  readonly insert: MeasuredBatch;
  /** `RunsRepository.appendStep` in a loop through the app's pool: the step write alone. */
  readonly append: MeasuredBatch;
}

export interface Rig {
  readonly db: BenchDatabase;
  readonly app: BenchApp;
  /** Polls runs and reads step logs (never writes during a measurement). */
  readonly observer: Client;
  readonly wal: WalProbe;
  readonly baseline: CommitBaseline;
  readonly configurations: Map<string, string>;
}

export async function prepareRig(
  db: BenchDatabase,
  variants: readonly Variant[],
  ceiling: number,
): Promise<Rig> {
  const app = await bootApp(db, { config: { maxIterationsCeiling: ceiling } });
  const observer = await rawClient(db.url, 'countersign-bench-observer');
  const wal = await WalProbe.open(db.url, db.oid);
  const baseline = await CommitBaseline.open(db.url);
  const configurations = new Map<string, string>();
  for (const v of variants) {
    const id = await upsertScriptedConfiguration(observer, {
      identifier: `bench-p5-${variantKey(v).toLowerCase()}`,
      rounds: readRounds(v.rounds),
      maxIterations: v.rounds + 1,
      privacyLevel: v.privacy,
    });
    configurations.set(variantKey(v), id);
  }
  return { db, app, observer, wal, baseline, configurations };
}

export async function releaseRig(rig: Rig): Promise<void> {
  await rig.app.close();
  await rig.baseline.close();
  await rig.wal.close();
  await rig.observer.end();
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

/** Starts a run over HTTP, waits for it to rest, and reads back its row, steps and WAL. */
export async function measureRun(rig: Rig, v: Variant, rep: number): Promise<RunSample> {
  const before = await rig.wal.lsn();
  const cpu = process.cpuUsage();
  const mark = process.hrtime.bigint();
  const configurationId = rig.configurations.get(variantKey(v));
  const runId = await startRun(rig.app.gql, { configurationId, prompt: 'Read the page.' });
  const run = await waitForRest(rig.observer, runId);
  const clientMs = msSince(mark);
  const cpuMs = cpuMsSince(cpu);
  const wal = await rig.wal.since(before);
  const steps = await stepLog(rig.observer, runId);
  const problems = stepLogProblems(run, steps);
  if (run.status !== 'COMPLETED' || run.terminationReason !== 'COMPLETED' || run.truncated) {
    problems.push(`ended ${run.status}/${run.terminationReason}${run.truncated ? ' (truncated)' : ''}`);
  }
  if (run.iterations !== v.rounds + 1)
    problems.push(`${run.iterations} iterations, expected ${v.rounds + 1}`);
  const start = run.startedAtMs ?? NaN;
  return {
    ...v,
    rep,
    runId,
    steps: steps.length,
    serverMs: (run.finishedAtMs ?? NaN) - start,
    clientMs,
    cpuMs,
    wal,
    stepWal: steps.map((s) => (wal.databaseBytes !== null ? (wal.byXid.get(s.xid) ?? 0) : null)),
    stepGapMs: gaps(start, steps),
    stepKinds: steps.map((s) => s.kind),
    problems: problems.map((p) => `${variantKey(v)} #${rep} (${runId}): ${p}`),
  };
}

function gaps(start: number, steps: readonly StepRow[]): number[] {
  return steps.map((s, i) => s.atMs - (i === 0 ? start : steps[i - 1]!.atMs));
}

async function measured(rig: Rig, work: () => Promise<CommitBatch>): Promise<MeasuredBatch> {
  const cpu = process.cpuUsage();
  const { value, wal } = await rig.wal.around(work);
  return { ...value, cpuMs: cpuMsSince(cpu), wal };
}

/**
 * `count` step writes through the project's `RunsRepository.appendStep` on one run of its
 * own (inserted RUNNING under a bench lease, settled afterwards), with payloads replayed from
 * `sample` (stored steps of a measured run): the database part of a step without the loop.
 */
async function appendSteps(
  rig: Rig,
  count: number,
  sample: readonly StoredStepSample[],
): Promise<CommitBatch> {
  const repository = rig.app.app.get(RunsRepository);
  const lease = { runId: randomUUID(), token: randomUUID(), claimedBy: 'bench:p5' };
  const leaseSeconds = rig.app.config.runLeaseSeconds;
  const owner = await rig.observer.query<{ id: number }>("SELECT id FROM app_user WHERE username = 'admin'");
  const newRun = {
    id: lease.runId,
    configurationId: Number(rig.configurations.values().next().value),
    ownerId: owner.rows[0]!.id,
    workspaceId: 0,
    subjectPageId: null,
    subjectLanguageId: null,
    maxIterations: 1,
    checkpoint: 'bench',
  };
  await repository.insertRunning(newRun, lease, leaseSeconds);
  const latenciesMs: number[] = [];
  let failures = 0;
  for (let i = 0; i < count; i++) {
    const step = sample[i % sample.length]!;
    const mark = process.hrtime.bigint();
    const sequence = await repository.appendStep(lease, step, leaseSeconds);
    latenciesMs.push(msSince(mark));
    if (sequence !== i + 1) failures++;
  }
  await rig.app.app
    .get(RunSettlingRepository)
    .settle(lease, { status: 'COMPLETED', reason: 'COMPLETED' }, [], null);
  return { latenciesMs, failures };
}

export interface StoredStepSample {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly payload: Record<string, unknown>;
}

/** The stored steps of a run (kind, round, payload as kept), to replay as step writes. */
export async function storedSteps(rig: Rig, runId: string): Promise<StoredStepSample[]> {
  const r = await rig.observer.query<{
    kind: string;
    round: number;
    duration_ms: number;
    payload: Record<string, unknown>;
  }>('SELECT kind, round, duration_ms, payload FROM run_step WHERE run_id = $1 ORDER BY sequence', [runId]);
  return r.rows.map((s) => ({ kind: s.kind, round: s.round, durationMs: s.duration_ms, payload: s.payload }));
}

export async function measureBaseline(
  rig: Rig,
  commits: number,
  rep: number,
  sample: readonly StoredStepSample[],
): Promise<BaselineSample> {
  const update = await measured(rig, () => rig.baseline.updates(commits));
  const insert = await measured(rig, () => rig.baseline.inserts(commits));
  const append = await measured(rig, () => appendSteps(rig, commits, sample));
  return { rep, update, insert, append };
}
