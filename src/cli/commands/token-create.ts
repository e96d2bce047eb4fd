import type { OperatorAccounts } from '../../modules/auth';
import { RequestContext } from '../../platform/auth/request-context';
import type { CliCommand } from '../args';
import { CliFailure, refusalsAsFailures } from '../failure';
import { userNamed } from './users-named';

type TokenCreate = Extract<CliCommand, { kind: 'token-create' }>;

/**
 * Creates a personal access token for an existing user: the one way to make a token for
 * someone else (the API makes tokens only for the caller), through the API's own use case as
 * the system: only its SHA-256 is stored, with no creator (the command line) and an audit
 * record. The token itself is the LAST line returned, alone, so scripts can take it with
 * `tail -n 1`. Refuses (CliFailure) an unknown user.
 */
export async function createToken(accounts: OperatorAccounts, cmd: TokenCreate): Promise<string[]> {
  const user = await userNamed(
    accounts,
    cmd.username,
    `No user "${cmd.username}"; create one with: npm run cli -- user create --username ${cmd.username}`,
  );
  const created = accounts.tokens.create(RequestContext.system(), { userId: user.id, label: cmd.label });
  const { tokenId, token } = await refusalsAsFailures(created, (r) =>
    r.code === 'NOT_FOUND'
      ? new CliFailure(`The user "${cmd.username}" was deleted meanwhile; no token created.`)
      : null,
  );
  return [
    `Created token ${tokenId} for "${user.username}" (label "${cmd.label}").`,
    'It is shown only this once; use it as `Authorization: Bearer <token>`:',
    token,
  ];
}
