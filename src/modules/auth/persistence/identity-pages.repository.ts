import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { UserView } from '../core/identity';
import type { TokenView } from '../core/token-view';
import { ApiTokenEntity } from './api-token.entity';
import { toTokenView } from './api-tokens.repository';
import { UserEntity } from './user.entity';
import { toUserView } from './users.repository';

/**
 * Keyset pages of the identity lists admins read (docs/pagination.md): users by id, and one
 * user's tokens newest first (`api_token_user_created_idx`).
 */
@Injectable()
export class IdentityPagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async users(afterId: number | null, limit: number): Promise<UserView[]> {
    const qb = managerOf(this.dataSource)
      .createQueryBuilder(UserEntity, 'u')
      .leftJoinAndSelect('u.groups', 'g');
    if (afterId !== null) qb.where('u.id > :afterId', { afterId });
    // why: take (not limit) counts users, not joined rows.
    const rows = await qb.orderBy('u.id', 'ASC').take(limit).getMany();
    return rows.map(toUserView);
  }

  /** A user's tokens, newest first, with the exact creation time a cursor after each encodes. */
  async tokens(
    userId: number,
    limit: number,
    after: { at: string; id: string } | null,
  ): Promise<Array<{ token: TokenView; at: string }>> {
    const m = managerOf(this.dataSource);
    // why: the page's ids first (one indexed range), then the tokens with their people.
    const qb = m
      .createQueryBuilder(ApiTokenEntity, 't')
      .select('t.id', 'id')
      .addSelect(`to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'at')
      .where('t.user_id = :userId', { userId });
    if (after) qb.andWhere('(t.created_at, t.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', after);
    const keys = await qb
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .limit(limit)
      .getRawMany<{ id: string; at: string }>();
    if (keys.length === 0) return [];
    const rows = await m.find(ApiTokenEntity, {
      where: keys.map((k) => ({ id: k.id })),
      relations: { user: { groups: true }, createdBy: { groups: true } },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return keys.flatMap((k) => {
      const row = byId.get(k.id);
      return row?.user ? [{ token: toTokenView(row, row.user), at: k.at }] : [];
    });
  }
}
