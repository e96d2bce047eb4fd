import { isRefusal, type Refusal } from '../common/refusal';

/** Exit codes of the CLI. */
export const EXIT_OK = 0;
/** A config error, a busy data directory, an unreachable or unmigrated database, a refusal. */
export const EXIT_FAILED = 1;
/** A command line the CLI does not understand. */
export const EXIT_USAGE = 2;

/** Where the CLI writes: normal output, and messages about failures. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/**
 * An expected failure of a CLI command (unknown user, existing username, unmigrated
 * database): the CLI prints the message alone, without a stack, and exits with code 1.
 */
export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}

/**
 * The outcome of a use case the command line calls as the system: a refusal (the API's checks,
 * the same code) becomes a CliFailure, as `special` words it where the command says it better,
 * else with its message and code.
 */
export async function refusalsAsFailures<T>(
  work: Promise<T>,
  special: (refusal: Refusal) => CliFailure | null = () => null,
): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (isRefusal(e)) throw special(e) ?? new CliFailure(`${e.message} (${e.code})`);
    throw e;
  }
}
