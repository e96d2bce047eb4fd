import type { GroupView } from './identity';

/** A value of the groups claim mapped to a group, as admins see it. */
export interface IdentityGroupMappingView {
  readonly id: number;
  readonly claimValue: string;
  readonly group: GroupView;
  readonly grantsAdmin: boolean;
  readonly createdAt: Date;
}
