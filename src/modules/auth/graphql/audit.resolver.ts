import { Args, ID, Int, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId } from '../../../common/ids';
import { AuditTrail } from '../application/audit-trail';
import type { AuditRecord } from '../core/audit';
import { AuditEventModel } from './audit.model';

@Resolver(() => AuditEventModel)
export class AuditResolver {
  constructor(private readonly audit: AuditTrail) {}

  @Query(() => [AuditEventModel], {
    description: 'Admin: changes to users and tokens, newest first; by or about `userId` when given.',
  })
  @Allow(Access.Admin)
  async auditEvents(
    @Ctx() ctx: RequestContext,
    @Args('userId', { type: () => ID, nullable: true }) userId: string | null,
    @Args('limit', { type: () => Int, defaultValue: 100, description: '1-500' }) limit: number,
  ): Promise<AuditEventModel[]> {
    const id = userId === null || userId === undefined ? null : parseSerialId(userId, 'userId');
    return (await this.audit.list(ctx, { userId: id, limit })).map(toAuditEventModel);
  }
}

function toAuditEventModel(r: AuditRecord): AuditEventModel {
  return {
    id: r.id,
    at: r.at,
    action: r.action,
    via: r.via,
    actorUserId: r.actor ? String(r.actor.userId) : null,
    actorUsername: r.actor?.username ?? null,
    actorTokenId: r.actor?.tokenId ?? null,
    subjectUserId: r.subjectUserId === null ? null : String(r.subjectUserId),
    details: { ...r.details },
  };
}
