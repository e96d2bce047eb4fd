import { readdirSync, readFileSync } from 'node:fs';

/** CPU spent over a span: this process (app, worker and bench client), and the local database server's. */
export interface CpuSpan {
  /** This process' user + system CPU, ms. */
  readonly processMs: number;
  /** Every local `postgres` process' user + system CPU, ms; null where none is visible (a remote server). */
  readonly databaseMs: number | null;
}

// why: /proc/<pid>/stat counts in clock ticks, which are 100 per second on every Linux the
// bench runs on (USER_HZ); Node has no sysconf to ask.
const MS_PER_TICK = 10;

/**
 * A process' CPU in clock ticks from its /proc/<pid>/stat line: its own user + system time and
 * that of its children it waited for (utime, stime, cutime, cstime: fields 14-17).
 */
export function ticksOfStat(stat: string): number {
  // why: the command name (field 2) may hold spaces and parentheses; the fields after its last
  // ')' start at field 3 (the state), so fields 14-17 sit at 11-14.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
}

/**
 * The CPU of every process named `postgres` (the postmaster, its backends and helpers), from
 * /proc: user + system time of the live ones, plus what the postmaster collected from
 * backends that ended (cutime + cstime). Null where /proc shows no such process.
 */
function databaseTicks(): number | null {
  let ticks = 0;
  let seen = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      ticks += ticksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      seen = true;
    } catch {
      // why: a backend that ended between the listing and the read is counted by its parent.
    }
  }
  return seen ? ticks : null;
}

/**
 * Measures the CPU a span of work costs on this machine, split between this process and the
 * local PostgreSQL. On the bench's two cores both share the machine, so a rate is bounded by
 * their sum: the split says which side a change has to make cheaper.
 */
export class CpuMeter {
  private constructor(
    private readonly process0: NodeJS.CpuUsage,
    private readonly database0: number | null,
  ) {}

  static start(): CpuMeter {
    return new CpuMeter(process.cpuUsage(), databaseTicks());
  }

  stop(): CpuSpan {
    const used = process.cpuUsage(this.process0);
    const database1 = databaseTicks();
    return {
      processMs: (used.user + used.system) / 1000,
      databaseMs:
        this.database0 === null || database1 === null ? null : (database1 - this.database0) * MS_PER_TICK,
    };
  }
}

/** CPU per unit of work (a continuation, a job), ms, rounded to 0.01. */
export function cpuPer(span: CpuSpan, units: number): { processMs: number; databaseMs: number | null } {
  const per = (ms: number) => Math.round((ms / Math.max(1, units)) * 100) / 100;
  return {
    processMs: per(span.processMs),
    databaseMs: span.databaseMs === null ? null : per(span.databaseMs),
  };
}
