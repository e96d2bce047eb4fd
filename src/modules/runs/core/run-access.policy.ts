import type { AuthUser } from '../../../platform/auth/auth-user';

/** What a user may do with one run (docs/decisions.md "Who may decide"). */
export interface RunAccess {
  /** Read the run's detail: its steps, its answer, the pending calls' arguments. */
  readonly detail: boolean;
  /** Decide its pending turn (approve, deny, submit input). */
  readonly decide: boolean;
}

/**
 * Detail access: the owner and admins. Decide access: the owner, admins, and holders of the
 * AGENT_APPROVE grant. A caller with neither must get NOT_FOUND (as for a run that does not
 * exist); one who may read but not decide gets FORBIDDEN on decisions.
 */
export function runAccess(user: AuthUser, run: { readonly ownerId: number }): RunAccess {
  const detail = user.isAdmin || user.id === run.ownerId;
  const decide = detail || user.grants.has('AGENT_APPROVE');
  return { detail, decide };
}

/** Whether the user may know the run exists at all (read or decide). */
export function mayKnowRun(user: AuthUser, run: { readonly ownerId: number }): boolean {
  const access = runAccess(user, run);
  return access.detail || access.decide;
}
