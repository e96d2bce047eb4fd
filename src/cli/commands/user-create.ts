import { DataSource, EntityManager, In } from 'typeorm';
import { auditActor } from '../../modules/auth/core/audit';
import { AuditRepository } from '../../modules/auth/persistence/audit.repository';
import { GroupEntity } from '../../modules/auth/persistence/group.entity';
import { UserEntity } from '../../modules/auth/persistence/user.entity';
import type { CliCommand } from '../args';
import { CliFailure } from '../failure';

type UserCreate = Extract<CliCommand, { kind: 'user-create' }>;

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** The groups named, all of them, or a CliFailure listing the unknown and the existing ones. */
async function existingGroups(m: EntityManager, names: readonly string[]): Promise<GroupEntity[]> {
  if (names.length === 0) return [];
  const groups = await m.find(GroupEntity, { where: { name: In([...names]) } });
  const unknown = names.filter((name) => !groups.some((g) => g.name === name));
  if (unknown.length === 0) return groups;
  const all = await m.find(GroupEntity, { order: { name: 'ASC' } });
  const known = all.length > 0 ? all.map((g) => g.name).join(', ') : 'none';
  throw new CliFailure(
    `Unknown group(s): ${unknown.join(', ')} (existing groups: ${known}); no user created.`,
  );
}

async function insertUser(m: EntityManager, cmd: UserCreate): Promise<string[]> {
  const groups = await existingGroups(m, cmd.groups);
  if (await m.exists(UserEntity, { where: { username: cmd.username } })) {
    throw new CliFailure(`A user "${cmd.username}" already exists; no user created.`);
  }
  const user = await m.save(
    m.create(UserEntity, {
      username: cmd.username,
      displayName: cmd.displayName,
      locale: cmd.locale,
      isAdmin: cmd.admin,
      groups,
    }),
  );
  await new AuditRepository(m.connection).record(
    {
      ...auditActor(null),
      action: 'USER_CREATED',
      subjectUserId: user.id,
      details: { username: user.username, isAdmin: user.isAdmin, groupIds: groups.map((g) => g.id) },
    },
    m,
  );
  const memberOf = groups.length > 0 ? groups.map((g) => g.name).join(', ') : 'none';
  return [
    `Created user "${user.username}" (id ${user.id}, admin: ${user.isAdmin ? 'yes' : 'no'}, groups: ${memberOf}).`,
    `Create a token for it with: npm run cli -- token create --user ${user.username}`,
  ];
}

/**
 * Creates a user, optionally an admin and a member of existing groups, with its audit record,
 * in one transaction.
 * Refuses (CliFailure, nothing written) an existing username or an unknown group.
 */
export async function createUser(ds: DataSource, cmd: UserCreate): Promise<string[]> {
  try {
    return await ds.transaction((m) => insertUser(m, cmd));
  } catch (e) {
    // why: a concurrent `user create` of the same name passes the exists() check and then
    // loses on the unique index; say so plainly instead of printing a driver error.
    if ((e as { code?: string }).code === UNIQUE_VIOLATION) {
      throw new CliFailure(`A user "${cmd.username}" already exists; no user created.`);
    }
    throw e;
  }
}
