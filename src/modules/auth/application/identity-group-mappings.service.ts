import { Injectable } from '@nestjs/common';
import { badInput, forbidden, notFound } from '../../../common/refusal';
import type { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { mayAdministerUsers } from '../core/token-access.policy';
import type { IdentityGroupMappingView } from '../core/identity-group-mapping';
import { IdentitiesRepository } from '../persistence/identities.repository';

export interface NewIdentityGroupMapping {
  readonly claimValue: string;
  readonly groupId: number;
  readonly grantsAdmin: boolean;
}

/**
 * The admins' mapping of the identity provider's groups claim to groups (docs/security.md).
 * Changes count from each user's next sign-in. Admins only (FORBIDDEN otherwise).
 */
@Injectable()
export class IdentityGroupMappingsService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly identities: IdentitiesRepository,
  ) {}

  async list(ctx: RequestContext): Promise<IdentityGroupMappingView[]> {
    assertAdministrator(ctx);
    return this.identities.listMappings();
  }

  /** NOT_FOUND for an unknown group; BAD_USER_INPUT when the value already maps to that group. */
  async create(ctx: RequestContext, request: NewIdentityGroupMapping): Promise<IdentityGroupMappingView> {
    assertAdministrator(ctx);
    const claimValue = request.claimValue.trim();
    if (claimValue.length === 0) throw badInput('claimValue must not be blank', { field: 'claimValue' });
    return this.tx.run(async () => {
      if (!(await this.identities.groupExists(request.groupId)))
        throw notFound(`No group with id ${request.groupId}`);
      const id = await this.identities.insertMapping(claimValue, request.groupId, request.grantsAdmin);
      if (id === null) {
        throw badInput(`"${claimValue}" is already mapped to this group`, { field: 'claimValue' });
      }
      const created = await this.identities.findMapping(id);
      if (!created) throw new Error(`mapping ${id} vanished inside its own transaction`);
      return created;
    });
  }

  /** NOT_FOUND when there is no such mapping. */
  async delete(ctx: RequestContext, id: number): Promise<true> {
    assertAdministrator(ctx);
    if (!(await this.tx.run(() => this.identities.deleteMapping(id)))) throw notFound('No such mapping');
    return true;
  }
}

function assertAdministrator(ctx: RequestContext): void {
  if (!mayAdministerUsers(ctx.user)) throw forbidden('Only admins may map identity provider groups');
}
