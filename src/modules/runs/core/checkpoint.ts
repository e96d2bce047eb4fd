import type {
  Decision,
  ForcedSkill,
  HistoryMessage,
  ProcessInstructions,
  SuspendedState,
} from '../../../agent';

/**
 * What a run continues from, sealed (AES-256-GCM, bound to the run id) in `run.checkpoint`:
 * - `start`: the input of a run that has not started its first segment (queued or requeued
 *   before any write);
 * - `state`: the runtime state (a waiting run's pause, or a running run's state after its
 *   last completed write);
 * - `decided`: a recorded decision on a paused state (the durable path), carried out by a worker.
 */
export type Checkpoint =
  | {
      readonly v: 1;
      readonly kind: 'start';
      readonly prompt?: string;
      readonly messages?: readonly HistoryMessage[];
      readonly skills?: readonly ForcedSkill[];
      readonly processPin?: unknown;
      /** The pinned skill version's instructions, sent to the model on this turn. */
      readonly processGuidance?: ProcessInstructions;
      readonly droppedProcess?: { readonly reason: string };
      /** Added to the configuration's system prompt (the chat's page and language). */
      readonly contextNote?: string;
    }
  | { readonly v: 1; readonly kind: 'state'; readonly state: SuspendedState }
  | {
      readonly v: 1;
      readonly kind: 'decided';
      readonly state: SuspendedState;
      readonly decision: Decision;
      readonly decisionId: string;
    };

export function isCheckpoint(value: unknown): value is Checkpoint {
  if (value === null || typeof value !== 'object') return false;
  const c = value as { v?: unknown; kind?: unknown };
  return c.v === 1 && (c.kind === 'start' || c.kind === 'state' || c.kind === 'decided');
}
