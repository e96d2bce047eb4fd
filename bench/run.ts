// `npm run bench [-- --quick] [-- --only P5]`: the scenarios of design/60-performance.md, each
// beside its baseline measured in the same run. Results go to bench/results/<scenario>.json.
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCENARIOS } from './scenarios';

export interface BenchOptions {
  readonly quick: boolean;
  readonly databaseUrl: string | null;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const onlyIdx = args.indexOf('--only');
  const only = onlyIdx >= 0 ? (args[onlyIdx + 1] ?? '').split(',') : null;
  const options: BenchOptions = { quick, databaseUrl: process.env.DATABASE_URL ?? null };
  const chosen = SCENARIOS.filter((s) => !only || only.includes(s.id));
  if (chosen.length === 0) {
    console.log(only ? `bench: no scenario named ${only.join(', ')}` : 'bench: no scenarios registered');
    return only ? 1 : 0;
  }
  const outDir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  let failed = 0;
  for (const scenario of chosen) {
    console.log(`\n## ${scenario.id}: ${scenario.title}${quick ? ' (quick)' : ''}`);
    const result = await scenario.run(options);
    writeFileSync(
      join(outDir, `${scenario.id}${quick ? '-quick' : ''}.json`),
      JSON.stringify(result, null, 2) + '\n',
    );
    for (const line of result.summary) console.log(`  ${line}`);
    console.log(
      `  correctness: ${result.correct ? 'ok' : 'FAILED'}; target: ${result.targetMet ? 'met' : 'not met'}`,
    );
    if (!result.correct) failed++;
  }
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
