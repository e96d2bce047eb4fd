import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
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

@Injectable()
export class AuthRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The token with this hash and its user with groups, in one query. */
  async findTokenByHash(hash: string, manager: EntityManager = managerOf(this.dataSource)) {
    return manager.findOne(ApiTokenEntity, {
      where: { tokenHash: hash },
      relations: { user: { groups: true } },
    });
  }

  async findTokenWithUser(tokenId: string, manager: EntityManager = managerOf(this.dataSource)) {
    return manager.findOne(ApiTokenEntity, {
      where: { id: tokenId },
      relations: { user: { groups: true } },
    });
  }

  /** Tokens with their users and groups, by id (the per-event re-checks of many subscribers at once). */
  async findTokensWithUsers(tokenIds: readonly string[]): Promise<ApiTokenEntity[]> {
    if (tokenIds.length === 0) return [];
    return managerOf(this.dataSource).find(ApiTokenEntity, {
      where: { id: In([...tokenIds]) },
      relations: { user: { groups: true } },
    });
  }

  /** A user with their groups, for acting as them (a run's owner). */
  async findUserWithGroups(userId: number, manager: EntityManager = managerOf(this.dataSource)) {
    return manager.findOne(UserEntity, { where: { id: userId }, relations: { groups: true } });
  }

  /** Records use at most once a minute per token, so authentication stays read-mostly. */
  async touchToken(tokenId: string, now: Date): Promise<void> {
    await managerOf(this.dataSource).query(
      `UPDATE api_token SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [tokenId, now],
    );
  }
}
