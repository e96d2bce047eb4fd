import { DataSource } from 'typeorm';
import { generateToken, hashToken } from '../../modules/auth';
import { auditActor } from '../../modules/auth/core/audit';
import { ApiTokensRepository } from '../../modules/auth/persistence/api-tokens.repository';
import { AuditRepository } from '../../modules/auth/persistence/audit.repository';
import { UserEntity } from '../../modules/auth/persistence/user.entity';
import type { CliCommand } from '../args';
import { CliFailure } from '../failure';

type TokenCreate = Extract<CliCommand, { kind: 'token-create' }>;

/**
 * Creates a personal access token for an existing user: the one way to make a token for
 * someone else (the API makes tokens only for the caller), so it needs the server's database.
 * Only its SHA-256 is stored (the same hashing the API's authenticator uses), with no creator
 * (the command line) and an audit record. The token itself is the LAST line returned, alone,
 * so scripts can take it with `tail -n 1`. Refuses (CliFailure) an unknown user.
 */
export async function createToken(ds: DataSource, cmd: TokenCreate): Promise<string[]> {
  const user = await ds.manager.findOne(UserEntity, { where: { username: cmd.username } });
  if (!user) {
    throw new CliFailure(
      `No user "${cmd.username}"; create one with: npm run cli -- user create --username ${cmd.username}`,
    );
  }
  const token = generateToken();
  const tokenId = await ds.transaction(async (m) => {
    const spec = { userId: user.id, label: cmd.label, expiresAt: null };
    const id = await new ApiTokensRepository(ds).insert(spec, hashToken(token), null, m);
    if (id === null)
      throw new CliFailure(`The user "${cmd.username}" was deleted meanwhile; no token created.`);
    await new AuditRepository(ds).record(
      {
        ...auditActor(null),
        action: 'TOKEN_CREATED',
        subjectUserId: user.id,
        details: { tokenId: id, label: cmd.label, expiresAt: null },
      },
      m,
    );
    return id;
  });
  return [
    `Created token ${tokenId} for "${user.username}" (label "${cmd.label}").`,
    'It is shown only this once; use it as `Authorization: Bearer <token>`:',
    token,
  ];
}
