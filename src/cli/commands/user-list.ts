import { DataSource } from 'typeorm';
import { ApiTokenEntity } from '../../modules/auth/persistence/api-token.entity';
import { UserEntity } from '../../modules/auth/persistence/user.entity';

/** Active tokens per user id: not revoked and not expired at `now`. */
async function activeTokenCounts(ds: DataSource, now: Date): Promise<Map<number, number>> {
  const rows = await ds.manager
    .createQueryBuilder(ApiTokenEntity, 't')
    .select('t.userId', 'userId')
    .addSelect('count(*)::int', 'n')
    .where('t.revokedAt IS NULL')
    .andWhere('(t.expiresAt IS NULL OR t.expiresAt > :now)', { now })
    .groupBy('t.userId')
    .getRawMany<{ userId: number; n: number }>();
  return new Map(rows.map((r) => [Number(r.userId), r.n]));
}

/** Every user, by username, one line each (never a token or its hash). */
export async function listUsers(ds: DataSource): Promise<string[]> {
  const users = await ds.manager.find(UserEntity, {
    relations: { groups: true },
    order: { username: 'ASC' },
  });
  if (users.length === 0) return ['No users yet: create one with `user create --username U`.'];
  const tokens = await activeTokenCounts(ds, new Date());
  const lines = users.map((u) => {
    const groups = (u.groups ?? []).map((g) => g.name).sort();
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
