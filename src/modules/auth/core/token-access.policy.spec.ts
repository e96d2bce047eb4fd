import { tokenCreation, tokenExpiryProblem } from './token-access.policy';

describe('tokenCreation', () => {
  const admin = { id: 1, isAdmin: true };
  const user = { id: 2, isAdmin: false };

  it('allows the command line for anyone and everyone for themselves', () => {
    expect(tokenCreation(null, 2)).toBe('allowed');
    expect(tokenCreation(admin, 1)).toBe('allowed');
    expect(tokenCreation(user, 2)).toBe('allowed');
  });

  it('forbids an admin another user, and hides other users from non-admins', () => {
    expect(tokenCreation(admin, 2)).toBe('forbidden');
    expect(tokenCreation(user, 1)).toBe('not-found');
  });
});

describe('tokenExpiryProblem', () => {
  const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));

  it('lets a token that never expires create any token', () => {
    expect(tokenExpiryProblem(null, null)).toBeNull();
    expect(tokenExpiryProblem(at(5), null)).toBeNull();
  });

  it('lets an expiring token create tokens expiring no later than it', () => {
    expect(tokenExpiryProblem(at(4), at(4))).toBeNull();
    expect(tokenExpiryProblem(at(3), at(4))).toBeNull();
  });

  it('refuses a later or missing expiry, naming the latest allowed time', () => {
    expect(tokenExpiryProblem(at(5), at(4))).toContain(at(4).toISOString());
    expect(tokenExpiryProblem(null, at(4))).toMatch(/may not outlive/);
  });
});
