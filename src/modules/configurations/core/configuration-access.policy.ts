/** What the access rule needs to know about a user. */
export interface ConfigurationUser {
  readonly isAdmin: boolean;
  readonly groups: ReadonlyArray<{ readonly id: number }>;
}

/**
 * Whether a user may use (list, start runs of, chat with) a configuration: admins always; a
 * configuration naming no groups is open to every user; otherwise the user must belong to one
 * of its allowed groups. Deletion is not judged here (callers hide deleted configurations).
 */
export function mayUseConfiguration(
  user: ConfigurationUser,
  configuration: { readonly allowedGroupIds: readonly number[] },
): boolean {
  if (user.isAdmin) return true;
  if (configuration.allowedGroupIds.length === 0) return true;
  return user.groups.some((g) => configuration.allowedGroupIds.includes(g.id));
}
