import { CliCommand, helpFor, parseCli, UsageError } from './args';
import { CliIo, EXIT_OK, EXIT_USAGE } from './failure';

/**
 * Runs one CLI invocation and returns its exit code: 0 done, 1 failed (a config error, a busy
 * data directory, an unreachable or unmigrated database, an expected refusal such as an
 * unknown user), 2 a bad command line. Never throws for those.
 */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let cmd: CliCommand;
  try {
    cmd = parseCli(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}`);
    io.err('');
    io.err(e.usage ?? helpFor(null));
    return EXIT_USAGE;
  }
  if (cmd.kind === 'help') {
    io.out(helpFor(cmd.topic));
    return EXIT_OK;
  }
  // why: the database stack (TypeORM, PGlite, the entities) loads only for commands that use
  // it, so --help and a bad command line answer at once.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { executeCommand } = require('./execute') as typeof import('./execute');
  return executeCommand(cmd, env, io);
}
