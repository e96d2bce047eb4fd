/**
 * How a chat turn's run finds the process (a process skill, docs/chat-and-skills.md)
 * it carries: a new invocation starts one; otherwise the predecessor's pin is passed on, or
 * the process is dropped for a stated reason. Pure: the caller loads the predecessor.
 */

/** Why a running process was dropped instead of failing the run. */
export type DropReason =
  'DETACHED' | 'CONFIGURATION_CHANGED' | 'PREDECESSOR_GONE' | 'VERSION_WITHDRAWN' | 'REFUSED_TOO_OFTEN';

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
  /** The approved version the process starts with and keeps (its pin). */
  readonly skillVersionId: number;
  readonly version: number;
}

/** A skill version as a turn needs it (the skills module's shape, restated to keep core pure). */
export interface ProcessVersionFacts {
  readonly id: number;
  readonly version: number;
  /** DRAFT, APPROVED or WITHDRAWN: only an APPROVED version guides a process. */
  readonly state: string;
  readonly name: string;
  readonly body: string;
}

/** The instructions of the running process, as the model is given them on this turn. */
export interface ProcessGuidance {
  readonly identifier: string;
  readonly name: string;
  readonly version: number;
  readonly body: string;
  readonly subject: SubjectRecord;
}

/**
 * What a process run carries forward; present = a process run. The version is absent only
 * from pins written before skills had versions.
 */
export interface ProcessPin extends Omit<SkillInvocation, 'skillVersionId' | 'version'> {
  readonly skillVersionId?: number;
  readonly version?: number;
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
  /** Skill ids the turn's catalogue holds now (enabled, attached, approved) and their approved version ids. */
  readonly catalogueVersions: ReadonlyMap<number, number>;
  /** The versions the turn may need: the invoked one, the predecessor's pinned one. */
  readonly versions: ReadonlyMap<number, ProcessVersionFacts>;
}

export interface ProcessAnswer {
  readonly pin: ProcessPin | null;
  readonly dropped: { readonly reason: DropReason } | null;
  /** Set with the pin: the pinned version's instructions. */
  readonly guidance: ProcessGuidance | null;
}

const NONE: ProcessAnswer = { pin: null, dropped: null, guidance: null };
const drop = (reason: DropReason): ProcessAnswer => ({ pin: null, dropped: { reason }, guidance: null });

/**
 * Decides the process of one turn; the checks run in the order the reasons are listed. A
 * process keeps the version it started with, also after a newer one is approved; once that
 * version is withdrawn the process is dropped (VERSION_WITHDRAWN).
 */
export function resolveProcess(q: ProcessQuestion): ProcessAnswer {
  if (q.invocation) {
    const version = q.versions.get(q.invocation.skillVersionId);
    if (!version || version.state !== 'APPROVED') return drop('VERSION_WITHDRAWN');
    const pin = { ...q.invocation, configurationId: q.configurationId, misses: 0 };
    return { pin, dropped: null, guidance: guidanceOf(pin, version) };
  }
  if (q.predecessorRunId === null) return NONE;
  const before = q.predecessor;
  if (!before || (before.ownerId !== q.callerId && !q.callerIsAdmin)) return drop('PREDECESSOR_GONE');
  const pin = asPin(before.processPin);
  if (!pin) return NONE;
  if (before.configurationId !== q.configurationId) return drop('CONFIGURATION_CHANGED');
  const catalogued = q.catalogueVersions.get(pin.skillId);
  if (catalogued === undefined) return drop('DETACHED');
  // why: a pin written before skills had versions continues with the version approved now.
  const version = q.versions.get(pin.skillVersionId ?? catalogued);
  if (!version || version.state !== 'APPROVED') return drop('VERSION_WITHDRAWN');
  // why: a predecessor that did not complete (its proposal withdrawn, the run failed or was
  // cancelled) did not move the process on; after three such turns in a row it is given up.
  const misses = before.status === 'COMPLETED' ? 0 : pin.misses + 1;
  if (misses >= MAX_PROCESS_MISSES) return drop('REFUSED_TOO_OFTEN');
  const next = { ...pin, skillVersionId: version.id, version: version.version, misses };
  return { pin: next, dropped: null, guidance: guidanceOf(next, version) };
}

/** The version ids a turn continuing from this stored pin needs (none for a legacy pin). */
export function pinnedVersionId(processPin: unknown): number | null {
  const pin = asPin(processPin);
  return pin && typeof pin.skillVersionId === 'number' ? pin.skillVersionId : null;
}

function guidanceOf(pin: ProcessPin, version: ProcessVersionFacts): ProcessGuidance {
  return {
    identifier: pin.identifier,
    name: version.name.trim() === '' ? pin.identifier : version.name,
    version: version.version,
    body: version.body,
    subject: pin.subject,
  };
}

/** Reads a stored pin; null for anything that is not one. */
export function asPin(value: unknown): ProcessPin | null {
  if (value === null || typeof value !== 'object') return null;
  const p = value as Partial<ProcessPin>;
  if (typeof p.skillId !== 'number' || typeof p.identifier !== 'string') return null;
  if (typeof p.configurationId !== 'number' || !p.subject) return null;
  return { ...(p as ProcessPin), misses: typeof p.misses === 'number' ? p.misses : 0 };
}
