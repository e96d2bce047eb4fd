/** What `npm run soak -- ...` accepts. */
export interface SoakOptions {
  /** Minutes of chaos (fractions allowed), not counting set-up, quiescence and the checker. */
  readonly minutes: number;
  /** The seed of every random choice (printed at the start and in the summary). */
  readonly seed: number;
  /** Worker processes (each killed and restarted at random). */
  readonly workers: number;
  /** API processes; the first is never killed (its resident set is followed). */
  readonly apis: number;
  /** Concurrent actors sending requests. */
  readonly lanes: number;
  /** Mean seconds between two kill -9 (0: no kills). */
  readonly killEverySeconds: number;
  /** Mean seconds between two switches of soak-multi to inactive and back (0: never). */
  readonly flickerEverySeconds: number;
  /** Runs left waiting for approval the whole time (memory: docs/benchmarks.md). */
  readonly idleRuns: number;
  /** Idle runProgress subscriptions on the first API process (one connection each). */
  readonly subscriptions: number;
  /** Where the history, the summary and the processes' logs go (a new folder by default). */
  readonly out: string | null;
  /** Keep the soak's database instead of dropping it (to look at a failure). */
  readonly keepDatabase: boolean;
}

export class SoakUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SoakUsageError';
  }
}

export const USAGE = `usage: npm run soak -- [--minutes N] [--seed S] [--workers K] [--apis K] [--lanes K]
       [--kill-every SECONDS] [--flicker-every SECONDS] [--idle-runs N] [--subscriptions N] [--out DIR] [--keep-database]
  DATABASE_URL names a PostgreSQL server (the soak creates and drops its own database there);
  REDIS_URL, where set, is passed to every process.`;

/** The memory figures' sizes (docs/benchmarks.md) from this many minutes on. */
export const FULL_SIZE_FROM_MINUTES = 5;

const NUMERIC = new Set([
  'minutes',
  'seed',
  'workers',
  'apis',
  'lanes',
  'kill-every',
  'flicker-every',
  'idle-runs',
  'subscriptions',
]);

/** `--name value` and `--name=value` pairs, and bare flags (value `true`). */
function pairs(argv: readonly string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new SoakUsageError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      out.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const name = arg.slice(2);
    const value = argv[i + 1];
    if ((NUMERIC.has(name) || name === 'out') && value !== undefined && !value.startsWith('--')) {
      out.set(name, value);
      i++;
    } else out.set(name, true);
  }
  return out;
}

function number(args: Map<string, string | true>, name: string, fallback: number, min: number): number {
  const raw = args.get(name);
  if (raw === undefined) return fallback;
  const n = raw === true ? NaN : Number(raw);
  if (!Number.isFinite(n) || n < min) throw new SoakUsageError(`--${name} must be a number >= ${min}`);
  return n;
}

function integer(args: Map<string, string | true>, name: string, fallback: number, min: number): number {
  const n = number(args, name, fallback, min);
  if (!Number.isInteger(n)) throw new SoakUsageError(`--${name} must be a whole number`);
  return n;
}

/** Parses the soak's arguments; `seed` supplies the seed when none is given. */
export function parseSoakArgs(argv: readonly string[], seed: () => number): SoakOptions {
  const args = pairs(argv);
  const known = new Set([...NUMERIC, 'out', 'keep-database']);
  const unknown = [...args.keys()].filter((k) => !known.has(k));
  if (unknown.length > 0) throw new SoakUsageError(`unknown option --${unknown[0]}`);
  const minutes = number(args, 'minutes', 1, 0.05);
  const full = minutes >= FULL_SIZE_FROM_MINUTES;
  const out = args.get('out');
  if (out === true) throw new SoakUsageError('--out needs a folder');
  const given = integer(args, 'seed', 0, 0);
  if (given > 0xffffffff) throw new SoakUsageError('--seed must be below 2^32');
  return {
    minutes,
    seed: args.has('seed') ? given : seed(),
    workers: integer(args, 'workers', 2, 1),
    apis: integer(args, 'apis', 2, 1),
    lanes: integer(args, 'lanes', 4, 1),
    killEverySeconds: number(args, 'kill-every', 15, 0),
    flickerEverySeconds: number(args, 'flicker-every', 20, 0),
    idleRuns: integer(args, 'idle-runs', full ? 100 : 20, 1),
    subscriptions: integer(args, 'subscriptions', full ? 1000 : 200, 0),
    out: out ?? null,
    keepDatabase: args.get('keep-database') === true,
  };
}
