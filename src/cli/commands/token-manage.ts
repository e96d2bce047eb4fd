import { DataSource } from 'typeorm';
import { auditActor } from '../../modules/auth/core/audit';
import type { TokenView } from '../../modules/auth/core/token-view';
import { ApiTokensRepository } from '../../modules/auth/persistence/api-tokens.repository';
import { AuditRepository } from '../../modules/auth/persistence/audit.repository';
import { UserEntity } from '../../modules/auth/persistence/user.entity';
import type { CliCommand } from '../args';
import { CliFailure } from '../failure';

type TokenList = Extract<CliCommand, { kind: 'token-list' }>;
type TokenRevoke = Extract<CliCommand, { kind: 'token-revoke' }>;

async function userNamed(ds: DataSource, username: string): Promise<UserEntity> {
  const user = await ds.manager.findOne(UserEntity, { where: { username } });
  if (!user) throw new CliFailure(`No user "${username}".`);
  return user;
}

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
export async function listTokens(ds: DataSource, cmd: TokenList): Promise<string[]> {
  const user = await userNamed(ds, cmd.username);
  const tokens = await new ApiTokensRepository(ds).listOf(user.id);
  if (tokens.length === 0) return [`"${user.username}" has no tokens.`];
  const now = new Date();
  return [`Tokens of "${user.username}" (${tokens.length}):`, ...tokens.map((t) => line(t, now))];
}

/**
 * Revokes one token of a user (`--id`; idempotent) or all not yet revoked (`--all`), with an
 * audit record. Refuses (CliFailure) an unknown user and an id that is not one of the user's.
 */
export async function revokeTokens(ds: DataSource, cmd: TokenRevoke): Promise<string[]> {
  const user = await userNamed(ds, cmd.username);
  const tokens = new ApiTokensRepository(ds);
  const audit = new AuditRepository(ds);
  const now = new Date();
  return ds.transaction(async (m) => {
    if (cmd.tokenId !== null) {
      const owner = await tokens.revoke(cmd.tokenId, user.id, now, m);
      if (owner === null)
        throw new CliFailure(`"${user.username}" has no token ${cmd.tokenId}; nothing revoked.`);
      await audit.record(
        {
          ...auditActor(null),
          action: 'TOKEN_REVOKED',
          subjectUserId: user.id,
          details: { tokenId: cmd.tokenId },
        },
        m,
      );
      return [`Revoked token ${cmd.tokenId} of "${user.username}".`];
    }
    const ids = await tokens.revokeAllOf(user.id, now, m);
    await audit.record(
      {
        ...auditActor(null),
        action: 'TOKENS_REVOKED',
        subjectUserId: user.id,
        details: { tokenIds: ids, count: ids.length },
      },
      m,
    );
    return [`Revoked ${ids.length} token(s) of "${user.username}".`];
  });
}
