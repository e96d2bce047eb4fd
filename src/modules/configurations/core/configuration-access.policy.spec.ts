import { mayUseConfiguration } from './configuration-access.policy';

const user = (groups: number[], isAdmin = false) => ({ isAdmin, groups: groups.map((id) => ({ id })) });

describe('mayUseConfiguration', () => {
  it('lets every user use a configuration that names no groups', () => {
    expect(mayUseConfiguration(user([]), { allowedGroupIds: [] })).toBe(true);
    expect(mayUseConfiguration(user([3]), { allowedGroupIds: [] })).toBe(true);
  });

  it('lets a member of one of the allowed groups use it', () => {
    expect(mayUseConfiguration(user([1, 2]), { allowedGroupIds: [2, 5] })).toBe(true);
  });

  it('refuses a user outside every allowed group, and a user without groups', () => {
    expect(mayUseConfiguration(user([1, 3]), { allowedGroupIds: [2, 5] })).toBe(false);
    expect(mayUseConfiguration(user([]), { allowedGroupIds: [2] })).toBe(false);
  });

  it('lets admins use everything, in no group at all', () => {
    expect(mayUseConfiguration(user([], true), { allowedGroupIds: [2] })).toBe(true);
  });
});
