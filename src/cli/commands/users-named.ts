import type { OperatorAccounts, UserView } from '../../modules/auth';
import { RequestContext } from '../../platform/auth/request-context';
import { CliFailure } from '../failure';

/** The user a command names, or a CliFailure with `missing` (default: `No user "U".`). */
export async function userNamed(
  accounts: OperatorAccounts,
  username: string,
  missing = `No user "${username}".`,
): Promise<UserView> {
  const user = await accounts.users.findByUsername(RequestContext.system(), username);
  if (!user) throw new CliFailure(missing);
  return user;
}
