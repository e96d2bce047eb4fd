/**
 * The reaper's rule for a RUNNING run whose lease expired (docs/run-lifecycle.md, "The reaper"),
 * by what the run's pending effect says:
 *
 * | pending effect                            | the run                                             |
 * | ----------------------------------------- | --------------------------------------------------- |
 * | none                                      | requeued, up to MAX_REQUEUES, then RETRIES_EXHAUSTED |
 * | `transactional`, not marked `applied`     | effect cleared, requeued (same limit)               |
 * | marked `applied` (whatever its effect)    | FAILED / NOT_RETRYABLE (`EFFECT_APPLIED`)           |
 * | `external`, or no declaration at all      | FAILED / NOT_RETRYABLE (`EFFECT_EXTERNAL`)          |
 *
 * Only a transactional effect without its mark is known not to have happened: its write and the
 * mark commit together or not at all. An external effect may have happened without any trace,
 * and an effect recorded without a declaration (by an older version) is not guessed at.
 * `RunReapingRepository.reapExpired` applies the rule in one statement.
 */
export type ReapCause = 'EFFECT_APPLIED' | 'EFFECT_EXTERNAL' | 'RETRIES_EXHAUSTED';

/** The run's `error_message`, and what the trace's TERMINAL event says, per cause. */
export const REAP_MESSAGES: Readonly<Record<ReapCause, string>> = {
  EFFECT_APPLIED:
    'The run stopped during a write that had already committed; its process lost the lease, and the write is not repeated',
  // why: `%s` is the tool's name (PostgreSQL format()), so the owner learns which call to check.
  EFFECT_EXTERNAL:
    'The run stopped during a call with an external effect (%s) that may have taken place; its process lost the lease, and the call is not repeated',
  RETRIES_EXHAUSTED: 'The run was abandoned by its process too many times',
};
