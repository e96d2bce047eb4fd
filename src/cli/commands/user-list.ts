import type { OperatorAccounts } from '../../modules/auth';
import { RequestContext } from '../../platform/auth/request-context';

/** Every user, by username, one line each (never a token or its hash). */
export async function listUsers(accounts: OperatorAccounts): Promise<string[]> {
  const system = RequestContext.system();
  const users = [...(await accounts.users.list(system))].sort((a, b) => (a.username < b.username ? -1 : 1));
  if (users.length === 0) return ['No users yet: create one with `user create --username U`.'];
  const tokens = await accounts.tokens.activeCounts(system);
  const lines = users.map((u) => {
    const groups = u.groups.map((g) => g.name).sort();
    return [
      String(u.id),
      u.username,
      `"${u.displayName}"`,
      u.locale,
      `admin: ${u.isAdmin ? 'yes' : 'no'}`,
      `groups: ${groups.length > 0 ? groups.join(',') : 'none'}`,
      `active tokens: ${tokens.get(u.id) ?? 0}`,
    ].join('  ');
  });
  return [`Users (${users.length}):`, ...lines];
}
