import type { ForcedSkill, HistoryMessage } from '../../../agent';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { ConfigurationView } from '../../configurations';
import type {
  DropReason,
  ProcessPin,
  ProcessVersionFacts,
  SkillInvocation,
} from '../core/process-resolution';

/** `startRun` as the API takes it (docs/api.md). */
export interface StartRunCommand {
  readonly configurationId: string;
  readonly prompt: string;
  readonly subjectPageId?: string | null;
  readonly subjectLanguageId?: number | null;
  readonly maxIterations?: number | null;
  readonly workspaceId?: number | null;
}

/** One chat turn as a queued run (docs/chat-and-skills.md). */
export interface TurnCommand {
  readonly owner: AuthUser;
  /** The chat configuration, already checked (active, usable). */
  readonly configuration: ConfigurationView;
  readonly prompt: string;
  /** Earlier messages of the conversation (users' and the assistant's; never notices). */
  readonly messages: readonly HistoryMessage[];
  /** Non-process skills as fenced reference data. */
  readonly skills: readonly ForcedSkill[];
  /** Added to the system prompt: the page and language the turn is about. */
  readonly contextNote: string;
  readonly subjectPageId: number | null;
  readonly subjectLanguageId: number | null;
  /** A process skill started by this turn (no predecessor then). */
  readonly invocation: SkillInvocation | null;
  readonly predecessorRunId: string | null;
  /**
   * Skill ids in the turn's catalogue now, to their approved version ids: a pinned skill
   * outside it was detached.
   */
  readonly catalogueVersions: ReadonlyMap<number, number>;
  /** The skill versions the turn may pin or continue with (the invoked one, the predecessor's). */
  readonly versions: ReadonlyMap<number, ProcessVersionFacts>;
}

/** What queuing a turn decided. */
export interface QueuedTurn {
  readonly runId: string;
  readonly processPin: ProcessPin | null;
  readonly droppedProcess: { readonly reason: DropReason } | null;
}
