/** The approved version a skill is used with: the latest APPROVED one. */
export interface ApprovedSkill {
  readonly versionId: number;
  readonly version: number;
  readonly name: string;
  readonly description: string;
  readonly body: string;
  readonly isProcess: boolean;
}

/**
 * A skill as the rest of the system sees it (no persistence or transport shape). Its own
 * name, description, body and flag are the last edit (what admins work on); runs and the
 * catalogue use `approved` only (null: no version approved yet, or every one withdrawn).
 */
export interface SkillView {
  readonly id: number;
  readonly identifier: string;
  readonly name: string;
  readonly description: string;
  readonly body: string;
  readonly isProcess: boolean;
  readonly enabled: boolean;
  readonly approved: ApprovedSkill | null;
}

/** One entry of the skill catalogue (docs/chat-and-skills.md). */
export interface CatalogueEntry {
  readonly identifier: string;
  /** The skill's name, or its identifier where the name is empty. */
  readonly name: string;
  readonly description: string;
  readonly isProcess: boolean;
  readonly skillId: number;
  /** The approved version the catalogue offers (a process started now pins it). */
  readonly skillVersionId: number;
  readonly version: number;
}

/**
 * The skill catalogue: the enabled skills attached to a configuration plus those attached to
 * a Task, deduplicated by identifier (the configuration's copy wins, then the first seen).
 * Disabled skills and skills without an approved version never enter it, wherever they are
 * attached; an entry shows the approved version, not the last edit. This is the one place that
 * decides which skills a chat may offer; the order is the configuration's skills, then the
 * Task's, each by identifier, so the result is stable.
 */
export function buildCatalogue(
  configurationSkills: readonly SkillView[],
  taskSkills: readonly SkillView[] = [],
): CatalogueEntry[] {
  const byIdentifier = (a: SkillView, b: SkillView): number => a.identifier.localeCompare(b.identifier);
  const seen = new Set<string>();
  const entries: CatalogueEntry[] = [];
  for (const skill of [
    ...[...configurationSkills].sort(byIdentifier),
    ...[...taskSkills].sort(byIdentifier),
  ]) {
    const approved = skill.approved;
    if (!skill.enabled || !approved || seen.has(skill.identifier)) continue;
    seen.add(skill.identifier);
    entries.push({
      identifier: skill.identifier,
      name: approved.name.trim() === '' ? skill.identifier : approved.name,
      description: approved.description,
      isProcess: approved.isProcess,
      skillId: skill.id,
      skillVersionId: approved.versionId,
      version: approved.version,
    });
  }
  return entries;
}

/** Finds a catalogue entry by identifier (the chat's SKILL_UNKNOWN check uses this). */
export function findInCatalogue(
  catalogue: readonly CatalogueEntry[],
  identifier: string,
): CatalogueEntry | undefined {
  return catalogue.find((e) => e.identifier === identifier);
}

/**
 * The shape of every upsert key (skills, configurations, Tasks): lower case, digits and
 * `.`, `_`, `-`, starting with a letter or digit, at most 100 characters (the column width).
 */
export const IDENTIFIER_PATTERN = /^[a-z0-9][a-z0-9._-]{0,99}$/;
