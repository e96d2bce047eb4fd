import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { joinedName, type JoinedRead } from '../../../platform/database/joined-read';
import { managerOf } from '../../../platform/database/transaction-runner';
import { AuthUser, Grant, GRANTS, GroupPermissions } from '../../../platform/auth/auth-user';
import { ApiTokenEntity } from './api-token.entity';
import { GroupEntity } from './group.entity';
import { UserEntity } from './user.entity';

export function toGroupPermissions(g: GroupEntity): GroupPermissions {
  return {
    id: g.id,
    name: g.name,
    grants: g.grants.filter((x): x is Grant => (GRANTS as readonly string[]).includes(x)),
    showPageIds: g.showPageIds,
    editPageIds: g.editPageIds,
    editLanguageIds: g.editLanguageIds,
  };
}

export function toAuthUser(user: UserEntity, tokenId: string): AuthUser {
  const groups = (user.groups ?? []).map(toGroupPermissions);
  return {
    id: user.id,
    username: user.username,
    displayName: user.displayName,
    locale: user.locale,
    isAdmin: user.isAdmin,
    groups,
    grants: new Set(groups.flatMap((g) => g.grants)),
    tokenId,
  };
}

/** The groups of the user under `alias` as a JSON array (ordered by id). */
const groupsOf = (alias: string): string => `COALESCE((SELECT json_agg(json_build_object('id', g.id,
        'name', g.name, 'grants', g.grants, 'showPageIds', g.show_page_ids, 'editPageIds', g.edit_page_ids,
        'editLanguageIds', g.edit_language_ids) ORDER BY g.id)
      FROM group_member m JOIN access_group g ON g.id = m.group_id WHERE m.user_id = ${alias}.id), '[]')`;

/** The groups of user `u`, for a select list. */
const GROUPS_OF_U = `${groupsOf('u')} AS groups`;

/** The columns of a user with groups (UserRow) under `alias`, each named `<alias>.<column>`. */
const JOINED_USER_COLUMNS: ReadonlyArray<readonly [keyof UserRow, (alias: string) => string]> = [
  ['user_id', (a) => `${a}.id`],
  ['username', (a) => `${a}.username`],
  ['display_name', (a) => `${a}.display_name`],
  ['locale', (a) => `${a}.locale`],
  ['is_admin', (a) => `${a}.is_admin`],
  ['user_created_at', (a) => `${a}.created_at`],
  ['groups', groupsOf],
];

/** One token, its user and the user's groups, as `tokensWhere` reads them. */
const TOKEN_WITH_USER = `SELECT t.id, t.user_id, t.token_hash, t.label, t.created_at, t.last_used_at,
    t.expires_at, t.revoked_at, u.username, u.display_name, u.locale, u.is_admin,
    u.created_at AS user_created_at, ${GROUPS_OF_U}
  FROM api_token t JOIN app_user u ON u.id = t.user_id`;

/** A user and their groups. */
const USER_WITH_GROUPS = `SELECT u.id AS user_id, u.username, u.display_name, u.locale, u.is_admin,
    u.created_at AS user_created_at, ${GROUPS_OF_U}
  FROM app_user u WHERE u.id = ANY($1::int[])`;

/** A run's owner and everyone who may decide any run (admins, AGENT_APPROVE holders), by id. */
const MAY_DECIDE_FOR_OWNER = `SELECT u.id AS user_id, u.username, u.display_name, u.locale, u.is_admin,
    u.created_at AS user_created_at, ${GROUPS_OF_U}
  FROM app_user u
 WHERE u.id = $1 OR u.is_admin OR EXISTS (
   SELECT 1 FROM group_member m JOIN access_group g ON g.id = m.group_id
    WHERE m.user_id = u.id AND 'AGENT_APPROVE' = ANY(g.grants))
 ORDER BY u.id
 LIMIT $2`;

type UserRow = Pick<
  TokenRow,
  'user_id' | 'username' | 'display_name' | 'locale' | 'is_admin' | 'user_created_at' | 'groups'
>;

interface TokenRow {
  id: string;
  user_id: number;
  token_hash: string;
  label: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  username: string;
  display_name: string;
  locale: string;
  is_admin: boolean;
  user_created_at: Date | string;
  groups: GroupEntity[] | string;
}

// why: the pg driver and PGlite both parse timestamptz and json, but a driver that hands
// back text must not turn a revocation into a truthy string or the groups into characters.
const dateOf = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));
const maybeDate = (v: Date | string | null): Date | null => (v === null ? null : dateOf(v));

function toUserEntity(r: UserRow): UserEntity {
  return Object.assign(new UserEntity(), {
    id: r.user_id,
    username: r.username,
    displayName: r.display_name,
    locale: r.locale,
    isAdmin: r.is_admin,
    createdAt: dateOf(r.user_created_at),
    groups: (typeof r.groups === 'string' ? (JSON.parse(r.groups) as GroupEntity[]) : r.groups).map((g) =>
      Object.assign(new GroupEntity(), g),
    ),
  });
}

function toTokenEntity(r: TokenRow): ApiTokenEntity {
  const user = toUserEntity(r);
  return Object.assign(new ApiTokenEntity(), {
    id: r.id,
    userId: r.user_id,
    user,
    tokenHash: r.token_hash,
    label: r.label,
    createdAt: dateOf(r.created_at),
    lastUsedAt: maybeDate(r.last_used_at),
    expiresAt: maybeDate(r.expires_at),
    revokedAt: maybeDate(r.revoked_at),
  });
}

@Injectable()
export class AuthRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A user with their groups read in another row's statement (a queued run's claim reads its
   * owner with it): what `findUserWithGroups` answers, without a round trip of its own.
   */
  readonly joinedUserWithGroups: JoinedRead<UserEntity> = {
    sql: (alias, on) => ({
      join: `LEFT JOIN app_user ${alias} ON ${alias}.id = ${on}`,
      columns: JOINED_USER_COLUMNS.map(
        ([name, expr]) => `${expr(alias)} AS "${joinedName(alias, name)}"`,
      ).join(', '),
    }),
    read: (raw, alias) => {
      if (raw[joinedName(alias, 'user_id')] == null) return null;
      const row = Object.fromEntries(
        JOINED_USER_COLUMNS.map(([name]) => [name, raw[joinedName(alias, name)]]),
      );
      return toUserEntity(row as unknown as UserRow);
    },
  };

  /**
   * Tokens with their users and groups, by hash, in one statement (the token checks of requests
   * arriving together). why: one hash goes as `= $1`, whose plan stays generic; `= ANY($1)` is
   * planned afresh every time (bench/README.md, thirteenth round), so only a batch pays that.
   */
  async findTokensByHashes(hashes: readonly string[]): Promise<ApiTokenEntity[]> {
    if (hashes.length === 0) return [];
    if (hashes.length === 1) return this.tokensWhere('t.token_hash = $1', [hashes[0]]);
    return this.tokensWhere('t.token_hash = ANY($1::bpchar[])', [[...hashes]]);
  }

  async findTokenWithUser(tokenId: string) {
    const rows = await this.tokensWhere('t.id = $1', [tokenId]);
    return rows[0] ?? null;
  }

  /** Tokens with their users and groups, by id (the per-event re-checks of many subscribers at once). */
  async findTokensWithUsers(tokenIds: readonly string[]): Promise<ApiTokenEntity[]> {
    if (tokenIds.length === 0) return [];
    return this.tokensWhere('t.id = ANY($1::uuid[])', [[...tokenIds]]);
  }

  /**
   * Tokens with their user and the user's groups in one statement (groups aggregated as JSON).
   * why: this runs on every request; TypeORM's findOne with a to-many relation sent two
   * statements (distinct ids with LIMIT 1, then the rows) and building them was the largest
   * CPU item of a bare request in the profile (bench/README.md, P0).
   */
  private async tokensWhere(condition: string, params: unknown[]): Promise<ApiTokenEntity[]> {
    const manager = managerOf(this.dataSource);
    const rows = await manager.query<TokenRow[]>(`${TOKEN_WITH_USER} WHERE ${condition}`, params);
    return rows.map(toTokenEntity);
  }

  /** A user with their groups, for acting as them (a run's owner). */
  async findUserWithGroups(userId: number) {
    return (await this.findUsersWithGroups([userId]))[0] ?? null;
  }

  /** Users with their groups by id, in one statement whatever their number; unknown ids are absent. */
  async findUsersWithGroups(userIds: readonly number[]): Promise<UserEntity[]> {
    const manager = managerOf(this.dataSource);
    if (userIds.length === 0) return [];
    // why: one statement, as for tokens (findOne with a to-many relation sends two).
    const rows = await manager.query<UserRow[]>(USER_WITH_GROUPS, [[...userIds]]);
    return rows.map(toUserEntity);
  }

  /** The owner and the users who may decide any run, at most `limit`, by id. */
  async findDecidersFor(ownerId: number, limit: number): Promise<UserEntity[]> {
    const rows = await managerOf(this.dataSource).query<UserRow[]>(MAY_DECIDE_FOR_OWNER, [ownerId, limit]);
    return rows.map(toUserEntity);
  }

  /** Records use at most once a minute per token, so authentication stays read-mostly. */
  async touchToken(tokenId: string, now: Date): Promise<void> {
    await managerOf(this.dataSource).query(
      `UPDATE api_token SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [tokenId, now],
    );
  }
}
