import { readFileSync } from 'node:fs';

/** The count of involuntary context switches in a `/proc/<pid>/task/<tid>/status` text. */
export function parseInvoluntarySwitches(status: string): number | null {
  const match = /^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
  return match ? Number(match[1]) : null;
}

/**
 * How often the calling thread has been switched out while it could still run (Linux
 * `/proc/thread-self/status`), or null where that is not available. In the bench process this is
 * the app's own thread: each switch is a moment the app was runnable and something else (a
 * PostgreSQL backend it woke, a client process, another service) held its core.
 *
 * why: on the bench's two cores the kernel places a PostgreSQL backend woken by the app on the
 * app's core (bench/README.md, "Issue 13, nineteenth round"); the count per decision shows in
 * every run how much the two took turns, which otherwise only `perf sched` shows.
 */
export function involuntarySwitches(): number | null {
  try {
    return parseInvoluntarySwitches(readFileSync('/proc/thread-self/status', 'utf8'));
  } catch {
    return null;
  }
}
