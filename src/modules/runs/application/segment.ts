import { storedAnswer, type Decision, type RunOutcome } from '../../../agent';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { ConfigurationSettings } from '../../configurations';
import type { TextReads } from '../../content';
import type { Checkpoint } from '../core/checkpoint';
import type { RunView } from '../core/run-view';
import type { Lease } from '../persistence/runs.repository';
import type { Settlement } from './run-settler';
import type { StateVault } from './state-vault';

/** One segment of a run to execute under a lease: a start, or a continuation of a decision. */
export interface Segment {
  readonly lease: Lease;
  readonly run: RunView;
  readonly configuration: ConfigurationSettings;
  readonly checkpoint: Checkpoint;
  /** Who decided, as the model is told, for a continuation. */
  readonly decision?: Decision;
  /** The run's owner, where the launcher has loaded it already; else the segment loads it. */
  readonly owner?: AuthUser;
  /**
   * The page the run is about, where the launcher has read it already (a decision reads it
   * with the run); else a run without a subject page looks its default page up.
   */
  readonly pageId?: number;
  /**
   * Page texts the launcher read ahead for the writes the segment will carry out (a worker's
   * pickup reads those of every run it took in one statement); else each write reads its own.
   */
  readonly readAhead?: TextReads;
}

/** Where the outcome leaves the run; null for a cancel (nothing to settle here). */
export function settlementOf(segment: Segment, outcome: RunOutcome, vault: StateVault): Settlement | null {
  const { run, configuration } = segment;
  const counters = {
    iterations: outcome.iterations,
    promptTokens: outcome.usage.promptTokens,
    completionTokens: outcome.usage.completionTokens,
  };
  const hadDecision =
    run.hadDecision || segment.decision !== undefined || segment.checkpoint.kind === 'decided';
  switch (outcome.kind) {
    case 'completed':
      return {
        kind: 'COMPLETED',
        reason: outcome.terminationReason,
        truncated: outcome.truncated,
        storedAnswer: storedAnswer(configuration.privacyLevel, hadDecision, outcome.answer),
        answer: outcome.answer,
        counters,
      };
    case 'suspended':
      return {
        kind: 'WAITING',
        status: outcome.pending.kind === 'APPROVAL' ? 'WAITING_FOR_APPROVAL' : 'WAITING_FOR_INPUT',
        checkpoint: vault.seal(run.id, { v: 1, kind: 'state', state: outcome.state }),
        pending: outcome.pending,
        counters,
      };
    case 'failed':
      return { kind: 'FAILED', reason: outcome.reason, message: outcome.message, counters };
    case 'cancelled':
      return null;
  }
}

/** The configuration's prompt with the turn's context (the chat's page and language) after it. */
export function withContext(systemPrompt: string, note: string | undefined): string {
  if (!note) return systemPrompt;
  return systemPrompt.trim() === '' ? note : `${systemPrompt}\n\n${note}`;
}

/** A continuation carries out a decision; anything else starts (or restarts) the run. */
export function segmentKind(segment: Segment): 'start' | 'continuation' {
  return segment.decision !== undefined || segment.checkpoint.kind === 'decided' ? 'continuation' : 'start';
}
