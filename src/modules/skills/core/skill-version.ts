import { Refusal } from '../../../common/refusal';

/** A skill version's life: written as a DRAFT, used once APPROVED, never again once WITHDRAWN. */
export const SKILL_VERSION_STATES = ['DRAFT', 'APPROVED', 'WITHDRAWN'] as const;
export type SkillVersionState = (typeof SKILL_VERSION_STATES)[number];

/** What a version carries: the guidance and how it is offered. */
export interface SkillContent {
  readonly name: string;
  readonly description: string;
  readonly body: string;
  readonly isProcess: boolean;
}

/** One version of a skill as the rest of the system sees it. */
export interface SkillVersionView extends SkillContent {
  readonly id: number;
  readonly skillId: number;
  readonly version: number;
  readonly state: SkillVersionState;
  /** Null for versions no person wrote (the migration's and the demo's version 1). */
  readonly authorId: number | null;
  readonly approvedBy: number | null;
  readonly approvedAt: Date | null;
  readonly withdrawnBy: number | null;
  readonly withdrawnAt: Date | null;
  readonly createdAt: Date;
}

/** True when an edit says the same as a version already written (no new version then). */
export function sameContent(a: SkillContent, b: SkillContent): boolean {
  return (
    a.name === b.name && a.description === b.description && a.body === b.body && a.isProcess === b.isProcess
  );
}

/**
 * Four-eyes on guidance: a DRAFT is approved by an admin other than its author. The refusal
 * for this approver, or null.
 */
export function approvalRefusal(version: SkillVersionView, approverId: number): Refusal | null {
  if (version.state !== 'DRAFT') {
    return new Refusal(
      'SKILL_VERSION_NOT_DRAFT',
      `Version ${version.version} is ${version.state}, not a draft`,
      {
        state: version.state,
      },
    );
  }
  if (version.authorId === approverId) {
    return new Refusal('SELF_APPROVAL_DENIED', 'An admin other than its author must approve a skill version');
  }
  return null;
}

/** A version is withdrawn once (a draft may be withdrawn unused). The refusal, or null. */
export function withdrawalRefusal(version: SkillVersionView): Refusal | null {
  if (version.state === 'WITHDRAWN') {
    return new Refusal('SKILL_VERSION_WITHDRAWN', `Version ${version.version} is already withdrawn`);
  }
  return null;
}
