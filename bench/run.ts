// `npm run bench [-- --quick] [-- --only P5[,P1]] [-- --redis]`: the scenarios of docs/benchmarks.md,
// each beside its baseline measured in the same run on the same PostgreSQL server (named by
// DATABASE_URL; each scenario creates and drops its own database there). Results go to
// bench/results/<scenario>[-redis][-quick].json; the exit code is 1 when any correctness check failed.
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCENARIOS } from './scenarios';
import type { Scenario, ScenarioResult } from './scenario';
import { cleanupAll } from './support/cleanup';
import type { BenchOptions } from './support/env';
import { checkLine, figureLine } from './support/report';
import { roundDeep } from './support/stats';

interface Args {
  readonly quick: boolean;
  readonly only: string[] | null;
  readonly profile: boolean;
  readonly redis: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  let only: string | null = null;
  for (const [i, arg] of argv.entries()) {
    if (arg === '--only') only = argv[i + 1] ?? '';
    else if (arg.startsWith('--only=')) only = arg.slice('--only='.length);
  }
  const ids = only === null ? null : only.split(',').map((s) => s.trim().toUpperCase());
  return {
    quick: argv.includes('--quick'),
    only: ids,
    profile: argv.includes('--profile'),
    redis: argv.includes('--redis'),
  };
}

async function runOne(
  scenario: Scenario,
  options: BenchOptions,
  argv: readonly string[],
): Promise<ScenarioResult> {
  const started = Date.now();
  const outcome = await scenario.run(options);
  const summary = [...outcome.figures.map(figureLine), ...outcome.checks.map(checkLine)];
  return {
    scenario: scenario.id,
    title: scenario.title,
    quick: options.quick,
    at: new Date(started).toISOString(),
    command: ['npm run bench', ...(argv.length ? ['--', ...argv] : [])].join(' '),
    durationMs: Date.now() - started,
    correct: outcome.checks.every((c) => c.ok),
    targetMet: outcome.figures.every((f) => !f.target || f.target.met),
    summary,
    ...outcome,
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const args = parseArgs(argv);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error(
      'bench: the benchmarks need PostgreSQL. Set DATABASE_URL to a server the bench may create databases on,\n' +
        '  e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- --quick',
    );
    return 1;
  }
  const chosen = SCENARIOS.filter((s) => !args.only || args.only.includes(s.id));
  if (chosen.length === 0) {
    console.error(
      args.only ? `bench: no scenario named ${args.only.join(', ')}` : 'bench: no scenarios registered',
    );
    return 1;
  }
  // why: `--redis` runs the scenarios that can (P4) on the Redis bus, as instances of a
  // deployment share it; REDIS_URL names the server.
  const redisUrl = args.redis ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : null;
  const outDir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const failures: string[] = [];
  for (const scenario of chosen) {
    console.log(`\n## ${scenario.id}: ${scenario.title}${args.quick ? ' (quick)' : ''}`);
    const options = { quick: args.quick, databaseUrl, profile: args.profile, redisUrl };
    const result = await runOne(scenario, options, argv);
    const file = join(outDir, `${scenario.id}${redisUrl ? '-redis' : ''}${args.quick ? '-quick' : ''}.json`);
    writeFileSync(file, JSON.stringify(roundDeep(result), null, 2) + '\n');
    for (const line of result.summary) console.log(`  ${line}`);
    console.log(
      `  => correctness: ${result.correct ? 'ok' : 'FAILED'}; targets: ${result.targetMet ? 'met' : 'NOT all met'}; ` +
        `${(result.durationMs / 1000).toFixed(1)} s; ${file}`,
    );
    for (const check of result.checks) if (!check.ok) failures.push(`${scenario.id} ${checkLine(check)}`);
  }
  // why: CI shows the end of a long log; a failed check is repeated last so that it is in view.
  console.log(
    failures.length === 0
      ? `\nbench: every correctness check passed (${chosen.map((s) => s.id).join(', ')})`
      : `\nbench: ${failures.length} correctness check(s) FAILED:\n${failures.map((f) => `  ${f}`).join('\n')}`,
  );
  return failures.length > 0 ? 1 : 0;
}

let stopping = false;

function stop(signal: NodeJS.Signals): void {
  // why: Nest's shutdown hooks (enableShutdownHooks) close the app on the same signal and then
  // re-send it to the process; staying subscribed (and ignoring repeats) keeps the process
  // alive until the bench databases are dropped.
  if (stopping) return;
  stopping = true;
  console.error(`\nbench: ${signal}, dropping the bench databases`);
  void cleanupAll().finally(() => process.exit(130));
}

process.on('SIGINT', stop);
process.on('SIGTERM', stop);

/** An error no scenario caught ends the bench, said on standard output, where CI logs look. */
function crashed(e: unknown): void {
  console.log(`\nbench: stopped by an error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  void cleanupAll().finally(() => process.exit(1));
}

process.on('uncaughtException', crashed);
process.on('unhandledRejection', crashed);

main().then(async (code) => {
  await cleanupAll();
  process.exit(code);
}, crashed);
