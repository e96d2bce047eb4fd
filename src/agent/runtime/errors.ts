/**
 * Typed errors of the agent runtime. Each carries a stable `code` the runs module maps to a
 * contract ErrorCode or a termination reason.
 */

/**
 * Thrown by the runs module's `recordStep` (or any port write) when the run's lease was taken
 * over. The loop never catches it: it propagates at once and nothing more is committed.
 */
export class LeaseLostError extends Error {
  readonly code = 'LEASE_LOST' as const;

  constructor(message = 'The run lease was lost') {
    super(message);
    this.name = 'LeaseLostError';
  }
}

/**
 * Thrown by a writing tool given the preview its decider approved (`verifiesPreview`) when,
 * read under its write's lock, the call would now show another preview: nothing was written,
 * and the runtime asks again with a new turn (what an approval of a changed preview gets).
 */
export class PreviewChangedError extends Error {
  readonly code = 'PREVIEW_CHANGED' as const;

  constructor(message = 'The page changed since the preview the decider approved') {
    super(message);
    this.name = 'PreviewChangedError';
  }
}

/** The suspended state could not be decrypted or decoded (maps to STATE_UNREADABLE). */
export class StateUnreadableError extends Error {
  readonly code = 'STATE_UNREADABLE' as const;

  constructor(message = 'The suspended state cannot be read') {
    super(message);
    this.name = 'StateUnreadableError';
  }
}

/** One failing place in submitted input values. */
export interface InputProblem {
  /** JSON Pointer of the failing value (`/tone`); `` for the whole object. */
  readonly path: string;
  readonly message: string;
}

/** Submitted input values fail the pending JSON Schema (maps to INVALID_INPUT). */
export class InvalidInputError extends Error {
  readonly code = 'INVALID_INPUT' as const;

  constructor(readonly problems: readonly InputProblem[]) {
    super(`Invalid input: ${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')}`);
    this.name = 'InvalidInputError';
  }

  /** The failing JSON paths, deduplicated, in order. */
  get paths(): string[] {
    return [...new Set(this.problems.map((p) => p.path))];
  }
}

/**
 * A decision that does not fit the state: no pending turn, or approve/deny on an input pause
 * and vice versa (maps to RUN_NOT_WAITING). The decision layer normally refuses earlier.
 */
export class DecisionMismatchError extends Error {
  readonly code = 'RUN_NOT_WAITING' as const;

  constructor(message: string) {
    super(message);
    this.name = 'DecisionMismatchError';
  }
}
