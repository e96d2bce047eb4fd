import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { badInput, forbidden, Refusal } from '../../../common/refusal';
import { GroupView, NewUserRequest, normalizeNewUser, UserView } from '../core/identity';
import { mayAdministerUsers } from '../core/token-access.policy';
import { UsersRepository } from '../persistence/users.repository';
import { AuditTrail } from './audit-trail';

/** Users and groups: the admin use cases, and lookups for other modules (`Run.owner`). */
@Injectable()
export class UsersService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly users: UsersRepository,
    private readonly audit: AuditTrail,
  ) {}

  /** Every user with their groups, by id. Admins only (FORBIDDEN otherwise). */
  async list(ctx: RequestContext): Promise<UserView[]> {
    assertAdministrator(ctx);
    return this.users.listUsers();
  }

  /** Every group with its grants, by id. Admins only (FORBIDDEN otherwise). */
  async listGroups(ctx: RequestContext): Promise<GroupView[]> {
    assertAdministrator(ctx);
    return this.users.listGroups();
  }

  /**
   * The subset of `ids` that name existing groups, no access check: for a caller's own checks
   * of ids it was given (a configuration's allowed groups, a Task's mappings).
   */
  existingGroupIds(ids: readonly number[]): Promise<Set<number>> {
    return this.users.existingGroupIds(ids);
  }

  /**
   * Creates a user with group memberships, all or nothing, with its audit record (who, the
   * admin flag, the groups). Admins (and the system) only.
   * Refusals, all before anything is written or rolled back: FORBIDDEN (not an admin),
   * BAD_USER_INPUT (username shape, display name, locale, too many groups, username taken),
   * NOT_FOUND (a group id that does not exist; `details.groupIds` lists them).
   */
  async create(ctx: RequestContext, request: NewUserRequest): Promise<UserView> {
    assertAdministrator(ctx);
    const user = normalizeNewUser(request);
    return this.tx.run(async (tx) => {
      const existing = await this.existingGroupIds(user.groupIds);
      const missing = user.groupIds.filter((id) => !existing.has(id));
      if (missing.length > 0) {
        throw new Refusal('NOT_FOUND', `No group with id ${missing.join(', ')}`, {
          groupIds: missing.map(String),
        });
      }
      const id = await this.users.insertUser(user);
      if (id === null) {
        throw badInput(`The username "${user.username}" is already taken`, { field: 'username' });
      }
      const [created] = await this.users.findUsersByIds([id]);
      if (!created) throw new Error(`user ${id} vanished inside its own transaction`);
      await this.audit.record(tx, ctx.user, 'USER_CREATED', id, {
        username: created.username,
        isAdmin: created.isAdmin,
        groupIds: created.groups.map((g) => g.id),
      });
      return created;
    });
  }

  /**
   * A user by id, or null. No access check: for references the caller may already see
   * (a run's owner); callers decide whether the viewer may know the user.
   */
  async findById(_ctx: RequestContext, id: number): Promise<UserView | null> {
    const [user] = await this.users.findUsersByIds([id]);
    return user ?? null;
  }

  /** Users by id (for batching references); missing ids are absent from the map. No access check. */
  async findByIds(_ctx: RequestContext, ids: readonly number[]): Promise<Map<number, UserView>> {
    const users = await this.users.findUsersByIds([...new Set(ids)]);
    return new Map(users.map((u) => [u.id, u]));
  }

  /** A user by username, or null (CLI bootstrap). No access check. */
  async findByUsername(_ctx: RequestContext, username: string): Promise<UserView | null> {
    return this.users.findUserByUsername(username);
  }
}

function assertAdministrator(ctx: RequestContext): void {
  if (!mayAdministerUsers(ctx.user)) throw forbidden('Only admins may administer users');
}
