// P5's probes beside the timed runs: the statements a step sends (QueryCounter, by shape) and,
// with --profile, a CPU profile of one long run (bench/results/P5[-quick].cpuprofile). Both
// run once after the warm-up, outside the timed repetitions (the counter's patch and the
// profiler would otherwise slow the runs they measure).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { profile, topOf } from '../support/cpu-profile';
import { QueryCounter } from '../support/query-counter';
import { measureRun, type Rig, type RunSample } from './p5-measure';

/** Statements of the app's pool during one run, per step and by shape. */
export interface StatementProbe {
  readonly rounds: number;
  readonly steps: number;
  readonly statements: number;
  readonly perStep: number;
  readonly perRound: ReadonlyArray<{ readonly shape: string; readonly perRound: number }>;
  readonly problems: readonly string[];
}

/** One METADATA run of `rounds` rounds with every statement of the app's pool counted. */
export async function countStatements(rig: Rig, rounds: number): Promise<StatementProbe> {
  const counter = QueryCounter.install();
  counter.start();
  let sample: RunSample;
  try {
    sample = await measureRun(rig, { rounds, privacy: 'METADATA' }, 0);
  } finally {
    counter.stop();
  }
  const count = counter.peek();
  return {
    rounds,
    steps: sample.steps,
    statements: count.total,
    perStep: count.total / sample.steps,
    perRound: count.byShape.map((s) => ({ shape: s.shape, perRound: s.count / rounds })),
    problems: sample.problems,
  };
}

/** One METADATA run of `rounds` rounds under the CPU profiler (app and bench client share the process). */
export async function profileRun(rig: Rig, rounds: number, quick: boolean) {
  let sample: RunSample | null = null;
  const cpuProfile = await profile(async () => {
    sample = await measureRun(rig, { rounds, privacy: 'METADATA' }, 0);
  });
  const file = join(__dirname, '..', '..', '..', 'bench', 'results', `P5${quick ? '-quick' : ''}.cpuprofile`);
  writeFileSync(file, JSON.stringify(cpuProfile));
  const s = sample as RunSample | null;
  return { file, rounds, msPerStep: s ? s.serverMs / s.steps : NaN, top: topOf(cpuProfile, 20) };
}

/** Console lines for the probes (the figures themselves go into the results' details). */
export function printProbes(
  statements: StatementProbe,
  prof: Awaited<ReturnType<typeof profileRun>> | null,
): void {
  console.log(
    `  statements of the app pool: ${statements.perStep.toFixed(2)} per step ` +
      `(${statements.statements} in a ${statements.rounds}-round run of ${statements.steps} steps); per round:`,
  );
  for (const s of statements.perRound) console.log(`    ${s.perRound.toFixed(2)}  ${s.shape}`);
  if (!prof) return;
  console.log(`  profile of a ${prof.rounds}-round run (${prof.msPerStep.toFixed(2)} ms/step): ${prof.file}`);
  for (const e of prof.top.bySelf)
    console.log(`    self ${e.selfPct.toFixed(1)}% total ${e.totalPct.toFixed(1)}%  ${e.name}`);
  for (const e of prof.top.packagesBySelf)
    console.log(`    package self ${e.selfPct.toFixed(1)}% total ${e.totalPct.toFixed(1)}%  ${e.name}`);
}
