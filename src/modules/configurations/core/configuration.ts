import type { SkillView } from '../../skills';

/** How much of a run's steps storage keeps (docs/run-lifecycle.md, "Privacy of stored steps"). */
export const PRIVACY_LEVELS = ['NONE', 'METADATA', 'REDACTED', 'FULL'] as const;
export type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];

export function isPrivacyLevel(value: unknown): value is PrivacyLevel {
  return typeof value === 'string' && (PRIVACY_LEVELS as readonly string[]).includes(value);
}

/** A configuration's token caps (docs/budgets.md); null: no cap. */
export interface TokenCaps {
  readonly maxTokensPerRun: number | null;
  readonly maxTokensPerUserPerDay: number | null;
}

/** What happens to a run whose approval deadline passed. */
export const APPROVAL_TIMEOUT_ACTIONS = ['DENY', 'FAIL'] as const;
export type ApprovalTimeoutAction = (typeof APPROVAL_TIMEOUT_ACTIONS)[number];

/** An agent configuration as the rest of the system sees it. */
export interface ConfigurationView extends TokenCaps {
  readonly id: number;
  readonly identifier: string;
  readonly name: string;
  readonly provider: string;
  readonly model: string;
  /** Validated when written (provider-options.policy); never holds a secret, only env names. */
  readonly providerOptions: Readonly<Record<string, unknown>>;
  readonly systemPrompt: string;
  readonly isActive: boolean;
  readonly requireSecondApprover: boolean;
  /** How long a run may wait for an approval (seconds); null: no deadline (docs/decisions.md). */
  readonly approvalTimeoutSeconds: number | null;
  /** What a passed deadline does: continue as denied (EXPIRED) or fail the run. */
  readonly onApprovalTimeout: ApprovalTimeoutAction;
  /** Distinct approvers a turn needs (1: a single approval decides). */
  readonly requiredApprovals: number;
  /** Already clamped to the ceiling when stored; clamp again at run start if the ceiling fell. */
  readonly maxIterations: number;
  readonly privacyLevel: PrivacyLevel;
  /** Groups allowed to use it; empty means every user. */
  readonly allowedGroupIds: readonly number[];
  /** Set once deleted: hidden from lists and `findForUse`, still readable by id for runs. */
  readonly deletedAt: Date | null;
  /** Attached skills, enabled or not, ordered by identifier. */
  readonly skills: readonly SkillView[];
}

/**
 * A configuration's settings without its skills: what a run that already points at it needs
 * (the decisions' checks, the continuation, the budget). A run's skills travel in its checkpoint.
 */
export type ConfigurationSettings = Omit<ConfigurationView, 'skills'>;

/** A Task: what the chat uses for the users of the mapped groups. */
export interface TaskView {
  readonly id: number;
  readonly identifier: string;
  readonly name: string;
  readonly priority: number;
  readonly groupIds: readonly number[];
  readonly configuration: ConfigurationView;
  /** Attached skills, enabled or not, ordered by identifier. */
  readonly skills: readonly SkillView[];
}

/** The identifier of the Task a user matching no mapping gets. */
export const DEFAULT_TASK_IDENTIFIER = 'default';
