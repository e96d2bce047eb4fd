import { actsAsAdministrator } from './administration';

describe('actsAsAdministrator', () => {
  it('holds for admins and for the system (no user: work outside the API)', () => {
    expect(actsAsAdministrator({ isAdmin: true })).toBe(true);
    expect(actsAsAdministrator(null)).toBe(true);
  });

  it('holds for no other user', () => {
    expect(actsAsAdministrator({ isAdmin: false })).toBe(false);
  });
});
