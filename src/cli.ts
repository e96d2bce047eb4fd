// The command-line interface: `npm run cli -- <command> [options]` (see `--help`).
// The logic lives in src/cli/; this file only wires it to the process.
import 'reflect-metadata';
import { runCli } from './cli/run';

runCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  // why: exit explicitly so a handle left open by a driver can never keep the CLI waiting;
  // stdout and stderr are synchronous for files and pipes on Linux, so nothing is lost.
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`error: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
