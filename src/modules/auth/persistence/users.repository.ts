import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { Grant, GRANTS } from '../../../platform/auth/auth-user';
import { GroupView, NewUser, UserView } from '../core/identity';
import { GroupEntity } from './group.entity';
import { UserEntity } from './user.entity';

export function toGroupView(g: GroupEntity): GroupView {
  return {
    id: g.id,
    name: g.name,
    grants: g.grants.filter((x): x is Grant => (GRANTS as readonly string[]).includes(x)),
  };
}

export function toUserView(u: UserEntity): UserView {
  return {
    id: u.id,
    username: u.username,
    displayName: u.displayName,
    locale: u.locale,
    isAdmin: u.isAdmin,
    groups: [...(u.groups ?? [])].sort((a, b) => a.id - b.id).map(toGroupView),
  };
}

/** Users and groups: reads for the API and other modules, and the insert of a new user. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async listUsers(): Promise<UserView[]> {
    const manager = managerOf(this.dataSource);
    const rows = await manager.find(UserEntity, { relations: { groups: true }, order: { id: 'ASC' } });
    return rows.map(toUserView);
  }

  async listGroups(): Promise<GroupView[]> {
    const manager = managerOf(this.dataSource);
    const rows = await manager.find(GroupEntity, { order: { id: 'ASC' } });
    return rows.map(toGroupView);
  }

  async findUsersByIds(ids: readonly number[]) {
    const manager = managerOf(this.dataSource);
    if (ids.length === 0) return [];
    const rows = await manager.find(UserEntity, { where: { id: In([...ids]) }, relations: { groups: true } });
    return rows.map(toUserView);
  }

  async findUserByUsername(username: string) {
    const manager = managerOf(this.dataSource);
    const row = await manager.findOne(UserEntity, { where: { username }, relations: { groups: true } });
    return row ? toUserView(row) : null;
  }

  /** The subset of `ids` that name existing groups. */
  async existingGroupIds(ids: readonly number[]): Promise<Set<number>> {
    const manager = managerOf(this.dataSource);
    if (ids.length === 0) return new Set();
    const rows = await manager.find(GroupEntity, { select: { id: true }, where: { id: In([...ids]) } });
    return new Set(rows.map((g) => g.id));
  }

  /**
   * Inserts a user with its group memberships; null when the username is taken.
   * why: ON CONFLICT instead of a read-then-insert, so two concurrent creates of the same
   * username cannot both pass a check; the loser simply gets no row back.
   */
  async insertUser(user: NewUser): Promise<number | null> {
    const manager = managerOf(this.dataSource);
    const rows: Array<{ id: number }> = await manager.query(
      `INSERT INTO app_user (username, display_name, locale, is_admin) VALUES ($1, $2, $3, $4)
       ON CONFLICT (username) DO NOTHING RETURNING id`,
      [user.username, user.displayName, user.locale, user.isAdmin],
    );
    const id = rows[0]?.id;
    if (id === undefined) return null;
    if (user.groupIds.length > 0) {
      await manager
        .createQueryBuilder()
        .relation(UserEntity, 'groups')
        .of(id)
        .add([...user.groupIds]);
    }
    return id;
  }
}
