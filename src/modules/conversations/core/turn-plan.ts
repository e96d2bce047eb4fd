/**
 * How a conversation's skill reaches the next turn (docs/chat-and-skills.md "How a
 * skill reaches a run"). Pure: the caller reads the catalogue fresh for every turn.
 */

/** The skill part of a conversation, as a turn needs it. */
export interface ConversationSkillState {
  readonly skillIdentifier: string | null;
  /** The conversation's skill was a process skill when it was picked. */
  readonly skillIsProcess: boolean;
  readonly skillStartPending: boolean;
  readonly lastRunId: string | null;
}

/** A catalogue entry (the skills module's shape, restated to keep core framework-free). */
export interface CatalogueSkill {
  readonly identifier: string;
  readonly name: string;
  readonly isProcess: boolean;
  readonly skillId: number;
  /** The approved version the catalogue offers. */
  readonly skillVersionId: number;
  readonly version: number;
}

/** A skill as attached to a configuration or looked up, with its approved version (null: none). */
export interface SkillWithBody {
  readonly identifier: string;
  readonly enabled: boolean;
  readonly approved: {
    readonly name: string;
    readonly body: string;
    readonly isProcess: boolean;
  } | null;
}

export interface ForcedSkillPlan {
  readonly identifier: string;
  readonly name: string;
  readonly body: string;
}

export interface TurnSkillPlan {
  /** The process skill this turn invokes (a new start: no predecessor). */
  readonly invoke: CatalogueSkill | null;
  /** The run this turn continues from (null for the first turn, an invocation, or no process). */
  readonly predecessorRunId: string | null;
  /** Non-process skills as fenced reference data, each once (their approved versions). */
  readonly forcedSkills: readonly ForcedSkillPlan[];
  /** True when this turn's run clears `startPending` once recorded. */
  readonly clearsStartPending: boolean;
}

/**
 * The skill plan of one turn:
 * - a process skill in the catalogue goes as an invocation on the first run and on the turn
 *   after a pick (`startPending`), naming no predecessor;
 * - while the conversation's skill is a process skill, every other turn names the last run
 *   (also when the skill left the catalogue, so the runtime can report the drop);
 * - once the process skill was removed or replaced by a non-process skill, no turn names a
 *   predecessor: the process ended (the conversation's history still goes with the turn);
 * - the configuration's enabled non-process skills go as reference data on every turn, and the
 *   conversation's non-process skill with them unless the configuration already has it; each
 *   in its approved version (a skill without one is left out).
 */
export function planTurnSkills(
  state: ConversationSkillState,
  catalogue: readonly CatalogueSkill[],
  configurationSkills: readonly SkillWithBody[],
  pickedSkill: SkillWithBody | null,
): TurnSkillPlan {
  const entry = state.skillIdentifier
    ? (catalogue.find((e) => e.identifier === state.skillIdentifier) ?? null)
    : null;
  const invokes = entry !== null && entry.isProcess && (state.lastRunId === null || state.skillStartPending);
  // why: a process goes on only while the conversation's skill is that process; a skill that
  // left the catalogue still names the predecessor, so the drop is reported (DETACHED).
  const processGoesOn = state.skillIdentifier !== null && (entry ? entry.isProcess : state.skillIsProcess);
  const forced: ForcedSkillPlan[] = [];
  const seen = new Set<string>();
  for (const s of configurationSkills) {
    if (!s.enabled || !s.approved || s.approved.isProcess || seen.has(s.identifier)) continue;
    seen.add(s.identifier);
    forced.push({ identifier: s.identifier, name: s.approved.name || s.identifier, body: s.approved.body });
  }
  const picked = pickedSkill?.enabled ? pickedSkill.approved : null;
  if (entry && !entry.isProcess && picked && !seen.has(entry.identifier)) {
    forced.push({ identifier: entry.identifier, name: entry.name, body: picked.body });
  }
  return {
    invoke: invokes ? entry : null,
    predecessorRunId: invokes || !processGoesOn ? null : state.lastRunId,
    forcedSkills: forced,
    clearsStartPending: invokes,
  };
}

/** The page and language a turn is about, for the system prompt. */
export interface TurnContextFacts {
  readonly page: { readonly id: number; readonly title: string | null; readonly slug: string } | null;
  /** Named only where the user may edit the language. */
  readonly language: {
    readonly id: number;
    readonly code: string | null;
    readonly title: string | null;
  } | null;
}

/** The lines added to the system prompt: the page (id, title) and the editable language. */
export function contextNote(facts: TurnContextFacts): string {
  if (!facts.page) return '';
  const title = facts.page.title ? ` "${facts.page.title}"` : '';
  const lines = [`The user is working on page ${facts.page.id}${title} (${facts.page.slug}).`];
  if (facts.language) {
    const name = [facts.language.title, facts.language.code].filter(Boolean).join(', ');
    lines.push(`The page language is ${facts.language.id}${name ? ` (${name})` : ''}.`);
  }
  return lines.join('\n');
}
