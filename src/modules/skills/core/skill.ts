/** A skill as the rest of the system sees it (no persistence or transport shape). */
export interface SkillView {
  readonly id: number;
  readonly identifier: string;
  readonly name: string;
  readonly description: string;
  readonly body: string;
  readonly isProcess: boolean;
  readonly enabled: boolean;
}

/** One entry of the skill catalogue (docs/chat-and-skills.md). */
export interface CatalogueEntry {
  readonly identifier: string;
  /** The skill's name, or its identifier where the name is empty. */
  readonly name: string;
  readonly description: string;
  readonly isProcess: boolean;
  readonly skillId: number;
}

/**
 * The skill catalogue: the enabled skills attached to a configuration plus those attached to
 * a Task, deduplicated by identifier (the configuration's copy wins, then the first seen).
 * Disabled skills never enter it, wherever they are attached. This is the one place that
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
    if (!skill.enabled || seen.has(skill.identifier)) continue;
    seen.add(skill.identifier);
    entries.push({
      identifier: skill.identifier,
      name: skill.name.trim() === '' ? skill.identifier : skill.name,
      description: skill.description,
      isProcess: skill.isProcess,
      skillId: skill.id,
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
