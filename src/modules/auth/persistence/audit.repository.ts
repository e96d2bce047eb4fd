import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { AuditAction, AuditEntry, AuditRecord, AuditVia } from '../core/audit';
import { AuditEventEntity } from './audit-event.entity';

/** The audit trail of changes to users and tokens: appended, never updated. */
@Injectable()
export class AuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Appends a record, in the transaction of the change it records (AuditTrail.record runs in it). */
  async record(entry: AuditEntry): Promise<void> {
    const manager = managerOf(this.dataSource);
    await manager.query(
      `INSERT INTO audit_event (via, actor_user_id, actor_username, actor_token_id, action, subject_user_id, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
      [
        entry.via,
        entry.actor?.userId ?? null,
        entry.actor?.username ?? null,
        entry.actor?.tokenId ?? null,
        entry.action,
        entry.subjectUserId,
        JSON.stringify(entry.details),
      ],
    );
  }

  /** The newest records first, optionally only those about or by one user. */
  async list(filter: { userId: number | null; limit: number }): Promise<AuditRecord[]> {
    const manager = managerOf(this.dataSource);
    const query = manager
      .createQueryBuilder(AuditEventEntity, 'a')
      .orderBy('a.at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .limit(filter.limit);
    if (filter.userId !== null) {
      query.where('(a.subject_user_id = :userId OR a.actor_user_id = :userId)', { userId: filter.userId });
    }
    return (await query.getMany()).map(toRecord);
  }
}

function toRecord(e: AuditEventEntity): AuditRecord {
  return {
    id: e.id,
    at: e.at,
    via: e.via as AuditVia,
    actor:
      e.actorUserId === null
        ? null
        : { userId: e.actorUserId, username: e.actorUsername ?? '', tokenId: e.actorTokenId ?? '' },
    action: e.action as AuditAction,
    subjectUserId: e.subjectUserId,
    details: e.details,
  };
}
