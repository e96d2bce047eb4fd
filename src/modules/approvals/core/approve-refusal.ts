/** Why the inbox says a viewer may not approve a run (the refusal approving would meet). */
export type ApproveRefusal = 'SELF_APPROVAL_DENIED' | 'APPROVER_NOT_PERMITTED';

/**
 * What the inbox's `mayApprove` says, as the refusal an approval would meet, or null where
 * it would pass these checks: four-eyes first (the initiator of a run whose configuration
 * requires a second approver), then the decider gate (`deciderPermits`).
 */
export function approveRefusal(facts: {
  readonly fourEyes: boolean;
  readonly isInitiator: boolean;
  readonly gatePasses: boolean;
}): ApproveRefusal | null {
  if (facts.fourEyes && facts.isInitiator) return 'SELF_APPROVAL_DENIED';
  if (!facts.gatePasses) return 'APPROVER_NOT_PERMITTED';
  return null;
}
