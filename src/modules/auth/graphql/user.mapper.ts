import { GroupView, UserView } from '../core/identity';
import { GrantEnum, GroupModel, UserModel } from './user.model';

export function toGroupModel(group: GroupView): GroupModel {
  return { id: String(group.id), name: group.name, grants: group.grants.map((g) => GrantEnum[g]) };
}

/** Maps a user (a `UserView`, or the authenticated `AuthUser`) to the GraphQL `User`. */
export function toUserModel(user: UserView): UserModel {
  return {
    id: String(user.id),
    username: user.username,
    displayName: user.displayName,
    locale: user.locale,
    isAdmin: user.isAdmin,
    groups: user.groups.map(toGroupModel),
  };
}
