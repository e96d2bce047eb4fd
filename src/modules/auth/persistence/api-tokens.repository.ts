import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { returnedRows } from '../../../platform/database/query-results';
import { managerOf } from '../../../platform/database/transaction-runner';
import { NewToken } from '../core/identity';
import type { TokenView } from '../core/token-view';
import { ApiTokenEntity } from './api-token.entity';
import { toUserView } from './users.repository';

/** Creation, listing and revocation of personal access tokens (authentication reads via AuthRepository). */
@Injectable()
export class ApiTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a token's hash for an existing user, with who created it (null: the command line);
   * null when there is no such user.
   * why: one INSERT ... SELECT, so a user deleted meanwhile cannot get a dangling token.
   */
  async insert(token: NewToken, tokenHash: string, createdBy: number | null): Promise<string | null> {
    const manager = managerOf(this.dataSource);
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO api_token (user_id, token_hash, label, expires_at, created_by)
       SELECT id, $2, $3, $4, $5 FROM app_user WHERE id = $1 RETURNING id`,
      [token.userId, tokenHash, token.label, token.expiresAt, createdBy],
    );
    return rows[0]?.id ?? null;
  }

  /** When a token expires (null: never); undefined when there is no such token. */
  async expiryOf(tokenId: string): Promise<Date | null | undefined> {
    const manager = managerOf(this.dataSource);
    const row = await manager.findOne(ApiTokenEntity, {
      select: { id: true, expiresAt: true },
      where: { id: tokenId },
    });
    return row ? row.expiresAt : undefined;
  }

  /** A user's tokens, newest first, with their owner and creator. */
  async listOf(userId: number): Promise<TokenView[]> {
    const manager = managerOf(this.dataSource);
    const rows = await manager.find(ApiTokenEntity, {
      where: { userId },
      relations: { user: { groups: true }, createdBy: { groups: true } },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
    return rows.flatMap((r) => (r.user ? [toTokenView(r, r.user)] : []));
  }

  /**
   * Revokes a token, restricted to `ownerId`'s tokens unless null (admins). Idempotent: an
   * already revoked token keeps its first revocation time. The owner's id, or null when no such
   * token (for this owner) exists.
   * why: one conditional UPDATE, so ownership and revocation cannot race apart.
   */
  async revoke(tokenId: string, ownerId: number | null, now: Date): Promise<number | null> {
    const manager = managerOf(this.dataSource);
    const rows: unknown = await manager.query(
      `UPDATE api_token SET revoked_at = COALESCE(revoked_at, $2)
       WHERE id = $1 AND ($3::int IS NULL OR user_id = $3) RETURNING user_id`,
      [tokenId, now, ownerId],
    );
    return returnedRows<{ user_id: number }>(rows)[0]?.user_id ?? null;
  }

  /** How many active tokens (not revoked, not expired at `now`) each user holds; users without any are absent. */
  async activeCounts(now: Date): Promise<Map<number, number>> {
    const rows: Array<{ user_id: number; n: number }> = await managerOf(this.dataSource).query(
      `SELECT user_id, count(*)::int AS n FROM api_token
       WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1) GROUP BY user_id`,
      [now],
    );
    return new Map(rows.map((r) => [Number(r.user_id), r.n]));
  }

  /** Revokes every token of a user not yet revoked; the ids revoked now. */
  async revokeAllOf(userId: number, now: Date): Promise<string[]> {
    const manager = managerOf(this.dataSource);
    const rows: unknown = await manager.query(
      `UPDATE api_token SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`,
      [userId, now],
    );
    return returnedRows<{ id: string }>(rows).map((r) => r.id);
  }
}

export function toTokenView(r: ApiTokenEntity, owner: NonNullable<ApiTokenEntity['user']>): TokenView {
  return {
    id: r.id,
    label: r.label,
    owner: toUserView(owner),
    createdBy: r.createdBy ? toUserView(r.createdBy) : null,
    createdAt: r.createdAt,
    lastUsedAt: r.lastUsedAt,
    expiresAt: r.expiresAt,
    revokedAt: r.revokedAt,
  };
}
