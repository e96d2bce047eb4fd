import { DataSource } from 'typeorm';
import { generateToken, hashToken } from '../../modules/auth';
import { ApiTokenEntity } from '../../modules/auth/persistence/api-token.entity';
import { UserEntity } from '../../modules/auth/persistence/user.entity';
import type { CliCommand } from '../args';
import { CliFailure } from '../failure';

type TokenCreate = Extract<CliCommand, { kind: 'token-create' }>;

/**
 * Creates a personal access token for an existing user. Only its SHA-256 is stored (the same
 * hashing the API's authenticator uses); the token itself is the LAST line returned, alone,
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
  const saved = await ds.manager.save(
    ds.manager.create(ApiTokenEntity, { userId: user.id, tokenHash: hashToken(token), label: cmd.label }),
  );
  return [
    `Created token ${saved.id} for "${user.username}" (label "${cmd.label}").`,
    'It is shown only this once; use it as `Authorization: Bearer <token>`:',
    token,
  ];
}
