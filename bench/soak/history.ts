import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

/** The GraphQL operations the soak sends. */
export type Operation =
  'startRun' | 'readRun' | 'approveRun' | 'denyRun' | 'submitRunInput' | 'cancelRun' | 'inbox';

export const DECISION_OPERATIONS: ReadonlySet<Operation> = new Set([
  'approveRun',
  'denyRun',
  'submitRunInput',
]);

/** What a decision mutation answered when it was acknowledged. */
export interface ReceiptSeen {
  readonly decisionId: string;
  readonly kind: string;
  readonly turn: number;
  readonly path: string;
  readonly runStatus: string;
}

/** One request and its answer, as the client saw them. */
export interface RequestEntry {
  readonly type: 'request';
  readonly seq: number;
  /** Milliseconds since the soak started, when the request was sent. */
  readonly t: number;
  readonly ms: number;
  readonly lane: number;
  readonly op: Operation;
  /** The process it went to (`api-2`) and that process's pid. */
  readonly target: string;
  readonly pid: number;
  readonly user: string;
  readonly runId: string | null;
  readonly variables: Record<string, unknown>;
  /** What the actor meant: a double click, a stale digest, concurrent deciders... */
  readonly intent: string;
  /** Requests sent together (a double click, concurrent deciders) share a group. */
  readonly group: string | null;
  /** The digest was made up (random, or the current one with a digit changed): it must never be acknowledged. */
  readonly stale: boolean;
  readonly status: number | null;
  /** Transport failure (connection refused or reset, timeout): no answer at all. */
  readonly transport: string | null;
  /** `extensions.code` of each error (`NO_CODE` where there was none). */
  readonly codes: string[];
  readonly receipt: ReceiptSeen | null;
  /** The run's status in the answer (startRun, readRun, cancelRun). */
  readonly runStatus: string | null;
  /** readRun: the pending turn seen. */
  readonly pending: { readonly kind: string; readonly turn: number; readonly digest: string } | null;
}

/** A process event: spawned, killed with SIGKILL, or found dead. */
export interface ProcessEntry {
  readonly type: 'process';
  readonly seq: number;
  readonly t: number;
  readonly event: 'spawn' | 'kill' | 'exit';
  readonly member: string;
  readonly pid: number;
}

/** A phase of the soak (set-up, chaos, quiescence, check). */
export interface PhaseEntry {
  readonly type: 'phase';
  readonly seq: number;
  readonly t: number;
  readonly phase: string;
  readonly detail?: Record<string, unknown>;
}

/** A run seen RUNNING without a lease, or with a lease expired longer than the reaper allows. */
export interface LeaseEntry {
  readonly type: 'lease';
  readonly seq: number;
  readonly t: number;
  readonly runId: string;
  readonly claimedBy: string | null;
  readonly problem: 'no lease' | 'expired';
  readonly expiredForSeconds: number | null;
}

/** A configuration switched off or on by the soak (the database's clock, epoch ms). */
export interface ConfigurationEntry {
  readonly type: 'configuration';
  readonly seq: number;
  readonly t: number;
  readonly identifier: string;
  readonly active: boolean;
  readonly atMs: number;
}

export type HistoryEntry = RequestEntry | ProcessEntry | PhaseEntry | LeaseEntry | ConfigurationEntry;

/** Distributes Omit over a union (keeps each member's own fields). */
type WithoutStamp<T> = T extends unknown ? Omit<T, 'seq' | 't'> : never;

/**
 * The soak's history: every request and answer, every kill and spawn, every lease problem
 * seen, in the order they happened, kept in memory for the checker and written as JSONL.
 */
export class History {
  private readonly entries: HistoryEntry[] = [];
  private readonly stream: WriteStream;
  private readonly started = Date.now();

  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { flags: 'w' });
  }

  /** Milliseconds since the soak started. */
  now(): number {
    return Date.now() - this.started;
  }

  append(entry: WithoutStamp<HistoryEntry>, t = this.now()): HistoryEntry {
    const stamped = { seq: this.entries.length + 1, t, ...entry } as HistoryEntry;
    this.entries.push(stamped);
    this.stream.write(JSON.stringify(stamped) + '\n');
    return stamped;
  }

  all(): readonly HistoryEntry[] {
    return this.entries;
  }

  async close(): Promise<void> {
    this.stream.end();
    if (!this.stream.closed) await once(this.stream, 'close');
  }
}
