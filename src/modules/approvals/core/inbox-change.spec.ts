import { InboxChangeTracker, inboxItemId } from './inbox-change';

describe('InboxChangeTracker', () => {
  it('ADDED when a run starts waiting, UPDATED for the same turn again, REMOVED when it stops', () => {
    const tracker = new InboxChangeTracker();
    expect(tracker.next('r1', true, 1)).toBe('ADDED');
    expect(tracker.next('r1', true, 1)).toBe('UPDATED');
    expect(tracker.next('r2', true, 1)).toBe('ADDED');
    expect(tracker.next('r1', false, 1)).toBe('REMOVED');
    expect(tracker.next('r1', true, 2)).toBe('ADDED');
    expect(tracker.next('r1', true, 3)).toBe('ADDED');
  });

  it('gives an id per run and viewer', () => {
    expect(inboxItemId('r1', 3)).toBe('r1:3');
    expect(inboxItemId('r1', 3)).not.toBe(inboxItemId('r1', 4));
  });
});
