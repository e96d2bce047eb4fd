/**
 * How a chat turn's run finds the process (a process skill, docs/chat-and-skills.md)
 * it carries: a new invocation starts one; otherwise the predecessor's pin is passed on, or
 * the process is dropped for a stated reason. Pure: the caller loads the predecessor.
 */

/** Why a running process was dropped instead of failing the run. */
export type DropReason = 'DETACHED' | 'CONFIGURATION_CHANGED' | 'PREDECESSOR_GONE' | 'REFUSED_TOO_OFTEN';

/** The record a process skill is invoked on: the conversation's page, its language (0 when unknown). */
export interface SubjectRecord {
  readonly table: 'pages';
  readonly id: number | null;
  readonly languageId: number;
}

/** A process skill invoked by identifier for one run (a new start, naming no predecessor). */
export interface SkillInvocation {
  readonly skillId: number;
  readonly identifier: string;
  readonly subject: SubjectRecord;
}

/** What a process run carries forward; present = a process run. */
export interface ProcessPin extends SkillInvocation {
  readonly configurationId: number;
  /** Turns in a row whose predecessor did not complete (a withdrawn, failed or cancelled step). */
  readonly misses: number;
}

/** Turns in a row a process may fail to continue before it is dropped (REFUSED_TOO_OFTEN). */
export const MAX_PROCESS_MISSES = 3;

export interface PredecessorFacts {
  readonly ownerId: number;
  readonly configurationId: number;
  readonly status: string;
  readonly processPin: unknown;
}

export interface ProcessQuestion {
  readonly invocation: SkillInvocation | null;
  /** Set when the turn names a predecessor; `predecessor` is then what was found (null: gone). */
  readonly predecessorRunId: string | null;
  readonly predecessor: PredecessorFacts | null;
  readonly callerId: number;
  readonly callerIsAdmin: boolean;
  readonly configurationId: number;
  /** Skill ids the turn's catalogue holds now (enabled and attached). */
  readonly catalogueSkillIds: ReadonlySet<number>;
}

export interface ProcessAnswer {
  readonly pin: ProcessPin | null;
  readonly dropped: { readonly reason: DropReason } | null;
}

const NONE: ProcessAnswer = { pin: null, dropped: null };
const drop = (reason: DropReason): ProcessAnswer => ({ pin: null, dropped: { reason } });

/** Decides the process of one turn; the checks run in the order the reasons are listed. */
export function resolveProcess(q: ProcessQuestion): ProcessAnswer {
  if (q.invocation) {
    return { pin: { ...q.invocation, configurationId: q.configurationId, misses: 0 }, dropped: null };
  }
  if (q.predecessorRunId === null) return NONE;
  const before = q.predecessor;
  if (!before || (before.ownerId !== q.callerId && !q.callerIsAdmin)) return drop('PREDECESSOR_GONE');
  const pin = asPin(before.processPin);
  if (!pin) return NONE;
  if (before.configurationId !== q.configurationId) return drop('CONFIGURATION_CHANGED');
  if (!q.catalogueSkillIds.has(pin.skillId)) return drop('DETACHED');
  // why: a predecessor that did not complete (its proposal withdrawn, the run failed or was
  // cancelled) did not move the process on; after three such turns in a row it is given up.
  const misses = before.status === 'COMPLETED' ? 0 : pin.misses + 1;
  if (misses >= MAX_PROCESS_MISSES) return drop('REFUSED_TOO_OFTEN');
  return { pin: { ...pin, misses }, dropped: null };
}

/** Reads a stored pin; null for anything that is not one. */
export function asPin(value: unknown): ProcessPin | null {
  if (value === null || typeof value !== 'object') return null;
  const p = value as Partial<ProcessPin>;
  if (typeof p.skillId !== 'number' || typeof p.identifier !== 'string') return null;
  if (typeof p.configurationId !== 'number' || !p.subject) return null;
  return { ...(p as ProcessPin), misses: typeof p.misses === 'number' ? p.misses : 0 };
}
