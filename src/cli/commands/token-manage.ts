import type { OperatorAccounts } from '../../modules/auth';
import type { TokenView } from '../../modules/auth';
import { RequestContext } from '../../platform/auth/request-context';
import type { CliCommand } from '../args';
import { CliFailure, refusalsAsFailures } from '../failure';
import { userNamed } from './users-named';

type TokenList = Extract<CliCommand, { kind: 'token-list' }>;
type TokenRevoke = Extract<CliCommand, { kind: 'token-revoke' }>;

const when = (d: Date | null, none: string): string => (d ? d.toISOString() : none);

function line(t: TokenView, now: Date): string {
  const state = t.revokedAt
    ? `revoked ${t.revokedAt.toISOString()}`
    : t.expiresAt && t.expiresAt.getTime() <= now.getTime()
      ? 'expired'
      : 'active';
  return [
    t.id,
    `"${t.label}"`,
    `created ${t.createdAt.toISOString()} by ${t.createdBy ? t.createdBy.username : 'the command line'}`,
    `last used ${when(t.lastUsedAt, 'never')}`,
    `expires ${when(t.expiresAt, 'never')}`,
    state,
  ].join('  ');
}

/** Lists a user's tokens, newest first (never a secret: only hashes are stored). */
export async function listTokens(accounts: OperatorAccounts, cmd: TokenList): Promise<string[]> {
  const user = await userNamed(accounts, cmd.username);
  const tokens = await accounts.tokens.list(RequestContext.system(), user.id);
  if (tokens.length === 0) return [`"${user.username}" has no tokens.`];
  const now = new Date();
  return [`Tokens of "${user.username}" (${tokens.length}):`, ...tokens.map((t) => line(t, now))];
}

/**
 * Revokes one token of a user (`--id`; idempotent) or all not yet revoked (`--all`), through the
 * API's own use cases as the system (an audit record each; running servers close the tokens'
 * connections on the database's NOTIFY). Refuses (CliFailure) an unknown user and an id that is
 * not one of the user's.
 */
export async function revokeTokens(accounts: OperatorAccounts, cmd: TokenRevoke): Promise<string[]> {
  const user = await userNamed(accounts, cmd.username);
  const system = RequestContext.system();
  if (cmd.tokenId !== null) {
    await refusalsAsFailures(accounts.tokens.revoke(system, cmd.tokenId, user.id), (r) =>
      r.code === 'NOT_FOUND'
        ? new CliFailure(`"${user.username}" has no token ${cmd.tokenId}; nothing revoked.`)
        : null,
    );
    return [`Revoked token ${cmd.tokenId} of "${user.username}".`];
  }
  const count = await accounts.tokens.revokeAll(system, user.id);
  return [`Revoked ${count} token(s) of "${user.username}".`];
}
