// P5 (docs/benchmarks.md): per-step overhead. Runs of 10 / 100 / 500 scripted read
// rounds without delay, started through GraphQL over HTTP, each repetition beside one
// synchronous single-row commit (and the bare step write) measured on the same database.
import { withBenchDatabase } from '../support/database';
import { describeEnvironment, type BenchOptions } from '../support/env';
import { checkAll, type Check } from '../support/report';
import { summarize } from '../support/stats';
import type { Scenario, ScenarioOutcome } from '../scenario';
import { openPeer, peerChecks, peerDetails, peerFigures, type PeerSample } from './p5-peer';
import { countStatements, printProbes, profileRun } from './p5-probes';
import {
  baselineFigures,
  headlineFigures,
  marginalWal,
  stepMsByKind,
  variantFigures,
  walByRelation,
} from './p5-figures';
import {
  measureBaseline,
  measureRun,
  prepareRig,
  releaseRig,
  storedSteps,
  variantKey,
  type BaselineSample,
  type Rig,
  type RunSample,
  type Variant,
} from './p5-measure';

interface Plan {
  /** Run lengths at the default privacy level (METADATA): the headline figures. */
  readonly sizes: readonly number[];
  /** Run lengths at privacy FULL (content stored): WAL must stay flat there too. */
  readonly fullPrivacySizes: readonly number[];
  readonly reps: number;
  /** Commits per baseline batch (UPDATE, INSERT, appendStep) per repetition. */
  readonly commits: number;
  /** Run lengths run once before measuring (JIT, pools, caches). */
  readonly warmup: readonly number[];
  /** Repetitions (the first ones) that also run the LangGraph peer at every size; 0: none. */
  readonly peerReps: number;
}

const FULL_PLAN: Plan = {
  sizes: [10, 100, 500],
  fullPrivacySizes: [10, 500],
  reps: 7,
  commits: 300,
  warmup: [10, 100],
  peerReps: 3,
};
// why: CI runs --quick on every push; 10/100/200 rounds keep it well under a minute on a
// loaded 2-core machine while still comparing a short run with a long one.
// The LangGraph peer is left out of --quick (CI).
const QUICK_PLAN: Plan = {
  sizes: [10, 100, 200],
  fullPrivacySizes: [],
  reps: 5,
  commits: 100,
  warmup: [10],
  peerReps: 0,
};

/** The app's iteration ceiling for P5 (above the env schema's 100; set after validation). */
const CEILING = 600;

function variantsOf(plan: Plan): Variant[] {
  return [
    ...plan.sizes.map((rounds) => ({ rounds, privacy: 'METADATA' as const })),
    ...plan.fullPrivacySizes.map((rounds) => ({ rounds, privacy: 'FULL' as const })),
  ];
}

/** Rounds of the run whose statements are counted (the profiled run is the longest size). */
const PROBE_ROUNDS = 100;

/**
 * Warm-up and the probes (statements per step; with --profile a CPU profile), then `reps` x
 * (baseline batches, one run of each variant), interleaved.
 */
async function measure(rig: Rig, plan: Plan, options: BenchOptions) {
  let sample: RunSample | null = null;
  for (const rounds of plan.warmup) sample = await measureRun(rig, { rounds, privacy: 'METADATA' }, 0);
  const replay = await storedSteps(rig, sample!.runId);
  await measureBaseline(rig, 50, 0, replay);
  const statements = await countStatements(rig, PROBE_ROUNDS);
  const prof = options.profile ? await profileRun(rig, Math.max(...plan.sizes), options.quick) : null;
  printProbes(statements, prof);
  const opened = plan.peerReps > 0 ? await openPeer(rig) : null;
  const runs: RunSample[] = [];
  const baselines: BaselineSample[] = [];
  const peer: PeerSample[] = [];
  try {
    for (let rep = 1; rep <= plan.reps; rep++) {
      baselines.push(await measureBaseline(rig, plan.commits, rep, replay));
      for (const v of variantsOf(plan)) runs.push(await measureRun(rig, v, rep));
      if (opened && rep <= plan.peerReps) {
        for (const rounds of plan.sizes) peer.push({ ...(await opened.peer.run(rounds)), rep });
      }
      process.stdout.write(`  repetition ${rep}/${plan.reps} done\n`);
    }
  } finally {
    await opened?.peer.close();
  }
  return { runs, baselines, peer, peerSizes: opened?.sizes ?? null, statements, prof };
}

/** Informational (never fails): how WAL was attributed, and how many spans could be read back. */
function walNote(rig: Rig, runs: RunSample[], baselines: BaselineSample[]): Check {
  if (!rig.wal.inspects) {
    return {
      name: 'WAL attribution',
      ok: true,
      detail: 'pg_walinspect unavailable: WAL figures are cluster-wide',
    };
  }
  const spans = [
    ...runs.map((r) => r.wal),
    ...baselines.flatMap((b) => [b.update.wal, b.insert.wal, b.append.wal]),
  ];
  const unread = spans.filter((w) => w.inspectError);
  const held = rig.wal.retainsWal ? 'yes' : 'no';
  return {
    name: 'WAL attributed to the bench database (pg_walinspect)',
    ok: true,
    detail:
      `${spans.length - unread.length}/${spans.length} spans read back (WAL held by a temporary slot: ${held})` +
      (unread.length ? `; left out: ${unread[0]!.inspectError}` : ''),
  };
}

function checks(
  rig: Rig,
  runs: RunSample[],
  baselines: BaselineSample[],
  settings: Record<string, string>,
): Check[] {
  const failures = (k: 'update' | 'insert' | 'append'): number =>
    baselines.reduce((n, b) => n + b[k].failures, 0);
  return [
    {
      name: 'durable commits (fsync on, synchronous_commit on)',
      ok: settings.fsync === 'on' && settings.synchronous_commit === 'on',
      detail: `fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}`,
    },
    checkAll(
      'every run COMPLETED after all its rounds; step_count = run_step rows; sequences 1..n',
      runs.length,
      runs.flatMap((r) => r.problems),
    ),
    {
      name: 'every baseline commit changed one row; every appendStep got the next sequence',
      ok: failures('update') + failures('insert') + failures('append') === 0,
      detail: `failed: update ${failures('update')}, insert ${failures('insert')}, appendStep ${failures('append')}`,
    },
    walNote(rig, runs, baselines),
  ];
}

function details(plan: Plan, rig: Rig, runs: RunSample[], baselines: BaselineSample[]) {
  const variants = variantsOf(plan);
  const sized = variants.map((v) => variantFigures(v, runs, baselines, plan.commits));
  const largest = (privacy: string): RunSample[] => {
    const top = Math.max(...variants.filter((v) => v.privacy === privacy).map((v) => v.rounds));
    return runs.filter((r) => r.privacy === privacy && r.rounds === top);
  };
  const base = baselineFigures(baselines, plan.commits);
  const byPrivacy = (p: string) => sized.filter((s) => s.privacy === p);
  return {
    sized,
    base,
    details: {
      plan: {
        ...plan,
        iterationCeiling: CEILING,
        walAttribution: rig.wal.inspects ? 'pg_walinspect' : 'cluster-wide',
      },
      baseline: base,
      variants: Object.fromEntries(sized.map((s) => [variantKey(s), s])),
      marginalWal: [...marginalWal(byPrivacy('METADATA')), ...marginalWal(byPrivacy('FULL'))],
      stepMsByKind: stepMsByKind(largest('METADATA')),
      walPerStepByRelation: Object.fromEntries(
        ['METADATA', 'FULL'].filter((p) => largest(p).length > 0).map((p) => [p, walByRelation(largest(p))]),
      ),
      runs: runs.map((r) => ({
        variant: variantKey(r),
        rep: r.rep,
        steps: r.steps,
        serverMs: r.serverMs,
        clientMs: r.clientMs,
        cpuMs: r.cpuMs,
        walDatabaseBytes: r.wal.databaseBytes,
        walClusterBytes: r.wal.clusterBytes,
        fpiBytes: r.wal.fpiBytes,
      })),
    },
  };
}

async function run(options: BenchOptions): Promise<ScenarioOutcome> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  return withBenchDatabase(options.databaseUrl, 'p5', async (db) => {
    const rig = await prepareRig(db, variantsOf(plan), CEILING);
    try {
      const environment = await describeEnvironment(rig.observer);
      const { runs, baselines, peer, peerSizes, statements, prof } = await measure(rig, plan, options);
      const d = details(plan, rig, runs, baselines);
      return {
        database: db.name,
        environment,
        checks: [
          ...checks(rig, runs, baselines, environment.settings),
          checkAll('the counted run (statements per step) completed correctly', 1, statements.problems),
          ...peerChecks(peer),
        ],
        figures: [
          ...headlineFigures(d.sized, d.base),
          {
            name: `statements of the app pool per step (${PROBE_ROUNDS} rounds)`,
            unit: '',
            ours: summarize([statements.perStep]),
          },
          ...peerFigures(plan.sizes, runs, peer),
        ],
        details: { ...d.details, statements, profile: prof, peer: peerDetails(peerSizes, peer) },
      };
    } finally {
      await releaseRig(rig);
    }
  });
}

export const P5: Scenario = {
  id: 'P5',
  title: 'per-step overhead: ms and WAL bytes per step against one synchronous commit',
  run,
};
