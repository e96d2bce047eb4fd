import { Injectable, Logger } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import type { Tx } from '../../../platform/database/transaction-runner';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { badInput, forbidden } from '../../../common/refusal';
import { AUDIT_LIST_MAX, type AuditAction, auditActor, type AuditRecord } from '../core/audit';
import { mayAdministerUsers } from '../core/token-access.policy';
import { AuditRepository } from '../persistence/audit.repository';

/**
 * The audit trail of changes to users and tokens: each change writes its record in its own
 * transaction (no change without its record, no record of a change rolled back) and, once
 * committed, one log line with the same facts, for log collectors.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly repository: AuditRepository,
    private readonly tx: TransactionRunner,
  ) {}

  async record(
    tx: Tx,
    user: AuthUser | null,
    action: AuditAction,
    subjectUserId: number | null,
    details: Record<string, unknown>,
  ): Promise<void> {
    const { via, actor } = auditActor(user);
    await this.repository.record({ via, actor, action, subjectUserId, details });
    tx.afterCommit(() =>
      this.logger.log(
        {
          audit: {
            action,
            via,
            actorUserId: actor?.userId ?? null,
            actorTokenId: actor?.tokenId ?? null,
            subjectUserId,
            ...details,
          },
        },
        `${action} by ${actor ? `${actor.username} (user ${actor.userId})` : 'an operator outside the API'}`,
      ),
    );
  }

  /**
   * The newest records, about or by `userId` when given. Admins only (FORBIDDEN otherwise);
   * BAD_USER_INPUT for a limit outside 1..500.
   */
  async list(ctx: RequestContext, filter: { userId: number | null; limit: number }): Promise<AuditRecord[]> {
    if (!mayAdministerUsers(ctx.user)) throw forbidden('Only admins may read the audit trail');
    if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > AUDIT_LIST_MAX) {
      throw badInput(`limit must be 1-${AUDIT_LIST_MAX}`, { field: 'limit' });
    }
    return this.repository.list(filter);
  }
}
