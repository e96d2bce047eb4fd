import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { NewToken } from '../core/identity';
import { ApiTokenEntity } from './api-token.entity';

/** Creation and revocation of personal access tokens (authentication reads via AuthRepository). */
@Injectable()
export class ApiTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a token's hash for an existing user; null when there is no such user.
   * why: one INSERT ... SELECT, so a user deleted meanwhile cannot get a dangling token.
   */
  async insert(
    token: NewToken,
    tokenHash: string,
    manager: EntityManager = managerOf(this.dataSource),
  ): Promise<string | null> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO api_token (user_id, token_hash, label, expires_at)
       SELECT id, $2, $3, $4 FROM app_user WHERE id = $1 RETURNING id`,
      [token.userId, tokenHash, token.label, token.expiresAt],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * Revokes a token, restricted to `ownerId`'s tokens unless null (admins). Idempotent: an
   * already revoked token keeps its first revocation time. False when no such token (for this
   * owner) exists.
   * why: one conditional UPDATE, so ownership and revocation cannot race apart.
   */
  async revoke(
    tokenId: string,
    ownerId: number | null,
    now: Date,
    manager: EntityManager = managerOf(this.dataSource),
  ): Promise<boolean> {
    const query = manager
      .createQueryBuilder()
      .update(ApiTokenEntity)
      .set({ revokedAt: () => 'COALESCE(revoked_at, :now)' })
      .where('id = :tokenId', { tokenId, now });
    if (ownerId !== null) query.andWhere('user_id = :ownerId', { ownerId });
    const result = await query.execute();
    return (result.affected ?? 0) === 1;
  }
}
