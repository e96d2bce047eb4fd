import { actsAsAdministrator } from '../../../common/administration';

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
  return actsAsAdministrator(actor) || actor?.id === ownerId;
}

/**
 * How a token request for the user `ownerId` is answered before anything else: `allowed` for
 * the system (the command line) and for a user asking for themselves; `forbidden` for an admin
 * asking for someone else; `not-found` for anyone else asking for someone else (as for a user
 * that does not exist, so non-admins cannot probe user ids).
 * why admins are refused: a token an admin mints for another user acts as that user, so an
 * admin could approve their own four-eyes run as someone else, with nothing but the token row
 * to tell. Tokens for another user come only from the command line, which needs the server.
 */
export function tokenCreation(actor: Actor | null, ownerId: number): 'allowed' | 'forbidden' | 'not-found' {
  if (actor === null || actor.id === ownerId) return 'allowed';
  return actor.isAdmin ? 'forbidden' : 'not-found';
}

/**
 * Null when a token created by a token expiring at `creatorExpiresAt` may expire at
 * `expiresAt` (null: never), else why not. A token may not outlive the token that created it:
 * otherwise a short-lived token (handed to a script, a CI job) could mint a permanent one.
 * why refuse rather than clamp: a caller who asked for a later expiry (or none) and silently
 * got an earlier one finds out when their job breaks; a refusal names the latest allowed time.
 */
export function tokenExpiryProblem(expiresAt: Date | null, creatorExpiresAt: Date | null): string | null {
  if (creatorExpiresAt === null) return null;
  if (expiresAt !== null && expiresAt.getTime() <= creatorExpiresAt.getTime()) return null;
  return `expiresAt must be at most ${creatorExpiresAt.toISOString()}: a token may not outlive the token that creates it`;
}

/**
 * Whose tokens `actor` may revoke: null for anyone's (admins, the system), else their own id.
 * Applied inside the revoking UPDATE, so an unknown token and another user's answer alike.
 */
export function tokenOwnerScope(actor: Actor | null): number | null {
  return actor && !actsAsAdministrator(actor) ? actor.id : null;
}

/** May `actor` administer users and groups (create users, list them)? Admins and the system. */
export function mayAdministerUsers(actor: Actor | null): boolean {
  return actsAsAdministrator(actor);
}
