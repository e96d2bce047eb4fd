import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { IdentityProfile } from '../core/identity-claims';
import type { IdentityGroupMappingView } from '../core/identity-group-mapping';
import type { Grant } from '../../../platform/auth/auth-user';

interface MappingRow {
  id: number;
  claim_value: string;
  group_id: number;
  group_name: string;
  group_grants: Grant[];
  grants_admin: boolean;
  created_at: Date | string;
}

const toMappingView = (r: MappingRow): IdentityGroupMappingView => ({
  id: r.id,
  claimValue: r.claim_value,
  group: { id: r.group_id, name: r.group_name, grants: r.group_grants },
  grantsAdmin: r.grants_admin,
  createdAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at),
});

const MAPPINGS = `SELECT m.id, m.claim_value, m.group_id, g.name AS group_name, g.grants AS group_grants, m.grants_admin, m.created_at
  FROM identity_group_mapping m JOIN access_group g ON g.id = m.group_id`;

/** Users linked to the identity provider, and the mapping of its groups claim. */
@Injectable()
export class IdentitiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findUserIdBySubject(issuer: string, subject: string): Promise<number | null> {
    const rows: Array<{ id: number }> = await managerOf(this.dataSource).query(
      `SELECT id FROM app_user WHERE identity_issuer = $1 AND identity_subject = $2`,
      [issuer, subject],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * Inserts a user linked to `issuer`/`subject`; null when the username or the link is taken.
   * why: ON CONFLICT on both unique keys, so two first sign-ins at once cannot create two users.
   */
  async insertLinkedUser(
    issuer: string,
    subject: string,
    profile: IdentityProfile,
    username: string,
  ): Promise<number | null> {
    const rows: Array<{ id: number }> = await managerOf(this.dataSource).query(
      `INSERT INTO app_user (username, display_name, locale, is_admin, identity_issuer, identity_subject, email)
       VALUES ($1, $2, $3, false, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id`,
      [username, profile.displayName, profile.locale, issuer, subject, profile.email],
    );
    return rows[0]?.id ?? null;
  }

  /** The group ids the claim values map to, and whether any of them grants admin rights. */
  async mappedFor(values: readonly string[]): Promise<{ groupIds: number[]; admin: boolean }> {
    if (values.length === 0) return { groupIds: [], admin: false };
    const rows: Array<{ group_id: number; grants_admin: boolean }> = await managerOf(this.dataSource).query(
      `SELECT group_id, grants_admin FROM identity_group_mapping WHERE claim_value = ANY($1::text[])`,
      [[...values]],
    );
    return {
      groupIds: [...new Set(rows.map((r) => r.group_id))].sort((a, b) => a - b),
      admin: rows.some((r) => r.grants_admin),
    };
  }

  /** Makes the user's memberships and admin flag exactly these (the token decides). */
  async syncMembership(userId: number, groupIds: readonly number[], admin: boolean): Promise<void> {
    const manager = managerOf(this.dataSource);
    await manager.query(`DELETE FROM group_member WHERE user_id = $1 AND NOT (group_id = ANY($2::int[]))`, [
      userId,
      [...groupIds],
    ]);
    if (groupIds.length > 0) {
      await manager.query(
        `INSERT INTO group_member (user_id, group_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
        [userId, [...groupIds]],
      );
    }
    await manager.query(`UPDATE app_user SET is_admin = $2 WHERE id = $1 AND is_admin <> $2`, [
      userId,
      admin,
    ]);
  }

  async listMappings(): Promise<IdentityGroupMappingView[]> {
    const rows: MappingRow[] = await managerOf(this.dataSource).query(
      `${MAPPINGS} ORDER BY m.claim_value, m.id`,
    );
    return rows.map(toMappingView);
  }

  /** Inserts a mapping; null when the value is already mapped to that group. */
  async insertMapping(claimValue: string, groupId: number, grantsAdmin: boolean): Promise<number | null> {
    const rows: Array<{ id: number }> = await managerOf(this.dataSource).query(
      `INSERT INTO identity_group_mapping (claim_value, group_id, grants_admin) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING id`,
      [claimValue, groupId, grantsAdmin],
    );
    return rows[0]?.id ?? null;
  }

  async groupExists(groupId: number): Promise<boolean> {
    const rows: unknown[] = await managerOf(this.dataSource).query(
      `SELECT 1 FROM access_group WHERE id = $1`,
      [groupId],
    );
    return rows.length > 0;
  }

  async findMapping(id: number): Promise<IdentityGroupMappingView | null> {
    const rows: MappingRow[] = await managerOf(this.dataSource).query(`${MAPPINGS} WHERE m.id = $1`, [id]);
    return rows[0] ? toMappingView(rows[0]) : null;
  }

  /** Deletes a mapping; false when there was none. */
  async deleteMapping(id: number): Promise<boolean> {
    const rows: unknown[] = await managerOf(this.dataSource).query(
      // why: TypeORM answers a bare DELETE with [rows, count]; a SELECT answers rows alone.
      `WITH gone AS (DELETE FROM identity_group_mapping WHERE id = $1 RETURNING id) SELECT id FROM gone`,
      [id],
    );
    return rows.length > 0;
  }
}
