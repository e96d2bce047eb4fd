/**
 * Whether an actor acts with an administrator's rights: an admin, or the system itself (null:
 * work outside the API, such as the command line or the demo seed, run by whoever operates the
 * database). The one rule behind every module's "admins (and the system) only" check.
 */
export function actsAsAdministrator(actor: { readonly isAdmin: boolean } | null): boolean {
  return actor === null || actor.isAdmin;
}
