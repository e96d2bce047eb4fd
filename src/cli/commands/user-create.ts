import type { OperatorAccounts } from '../../modules/auth';
import { RequestContext } from '../../platform/auth/request-context';
import type { CliCommand } from '../args';
import { CliFailure, refusalsAsFailures } from '../failure';

type UserCreate = Extract<CliCommand, { kind: 'user-create' }>;

/**
 * Creates a user, optionally an admin and a member of existing groups named, through the API's
 * own use case (its checks, its audit record, one transaction). Refuses (CliFailure, nothing
 * written) an existing username, or an unknown group, naming the groups there are.
 */
export async function createUser(accounts: OperatorAccounts, cmd: UserCreate): Promise<string[]> {
  const system = RequestContext.system();
  const groups = await accounts.users.listGroups(system);
  const unknown = cmd.groups.filter((name) => !groups.some((g) => g.name === name));
  if (unknown.length > 0) {
    const known =
      groups.length > 0
        ? groups
            .map((g) => g.name)
            .sort()
            .join(', ')
        : 'none';
    throw new CliFailure(
      `Unknown group(s): ${unknown.join(', ')} (existing groups: ${known}); no user created.`,
    );
  }
  const taken = new CliFailure(`A user "${cmd.username}" already exists; no user created.`);
  if (await accounts.users.findByUsername(system, cmd.username)) throw taken;
  const created = accounts.users.create(system, {
    username: cmd.username,
    displayName: cmd.displayName,
    locale: cmd.locale,
    isAdmin: cmd.admin,
    groupIds: groups.filter((g) => cmd.groups.includes(g.name)).map((g) => g.id),
  });
  // why: a concurrent `user create` of the same name passes the lookup and is refused by the
  // insert itself (BAD_USER_INPUT, "already taken"), with nothing written.
  const user = await refusalsAsFailures(created);
  const memberOf = user.groups.length > 0 ? user.groups.map((g) => g.name).join(', ') : 'none';
  return [
    `Created user "${user.username}" (id ${user.id}, admin: ${user.isAdmin ? 'yes' : 'no'}, groups: ${memberOf}).`,
    `Create a token for it with: npm run cli -- token create --user ${user.username}`,
  ];
}
