/** Who acts: an authenticated user, or null for the system itself (CLI, seed, workers). */
export interface Actor {
  readonly id: number;
  readonly isAdmin: boolean;
}

/**
 * May `actor` create or revoke tokens of the user `ownerId`? Admins (and the system) for
 * anyone; a user for themselves. A refusal must answer NOT_FOUND, never FORBIDDEN: a
 * non-admin cannot list users, so FORBIDDEN would confirm that a user id exists.
 */
export function mayManageTokensOf(actor: Actor | null, ownerId: number): boolean {
  if (actor === null || actor.isAdmin) return true;
  return actor.id === ownerId;
}

/**
 * Whose tokens `actor` may revoke: null for anyone's (admins, the system), else their own id.
 * Applied inside the revoking UPDATE, so an unknown token and another user's answer alike.
 */
export function tokenOwnerScope(actor: Actor | null): number | null {
  return actor === null || actor.isAdmin ? null : actor.id;
}

/** May `actor` administer users and groups (create users, list them)? Admins and the system. */
export function mayAdministerUsers(actor: Actor | null): boolean {
  return actor === null || actor.isAdmin;
}
