import type { Checkpoint } from './checkpoint';

/** What a worker does with a queued run it claimed, given the checkpoint it opened. */
export type PickupPlan = { readonly kind: 'launch' } | { readonly kind: 'fail'; readonly message: string };

/** Stored on a claimed run whose checkpoint cannot be decrypted or decoded. */
export const UNREADABLE_CHECKPOINT_MESSAGE = 'The run cannot continue: its stored state cannot be read';

/**
 * A queued run continues from its checkpoint: `start` runs the agent from the start input,
 * `state` without a pending turn continues after the last completed write, `decided` carries
 * out a recorded decision (a decision run requeued by the reaper). A `state` that still holds a
 * pending turn needs a decision first, which a queued run never gets: it fails NOT_RETRYABLE
 * rather than guessing.
 */
export function pickupPlan(checkpoint: Checkpoint): PickupPlan {
  switch (checkpoint.kind) {
    case 'start':
    case 'decided':
      return { kind: 'launch' };
    case 'state':
      return checkpoint.state.pending
        ? { kind: 'fail', message: 'The run cannot continue: its stored state waits for a decision' }
        : { kind: 'launch' };
  }
}
