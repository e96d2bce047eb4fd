import type { PendingCall } from '../../../agent';
import {
  callsForViewer,
  mayReadOwnerGroups,
  mayReadRunConfiguration,
  pageIdOf,
  pendingPageIds,
  WITHHELD_PREVIEW,
} from './pending-visibility';

const update = (pageId: unknown): PendingCall => ({
  callId: `c${String(pageId)}`,
  toolName: 'pages_update',
  writes: true,
  arguments: { pageId, languageId: 0, seoTitle: 'New' },
  preview: ['seoTitle: "Old" -> "New"'],
});
const search: PendingCall = {
  callId: 's',
  toolName: 'pages_search',
  writes: false,
  arguments: { query: 'x' },
  preview: [],
};

describe('pending visibility', () => {
  it('reads the page a call names, and flags ids that cannot be pages', () => {
    expect(pageIdOf(update(7))).toBe(7);
    expect(pageIdOf(update('7'))).toBe(7);
    expect(pageIdOf(search)).toBeNull();
    expect(pageIdOf(update(0))).toBe('invalid');
    expect(pageIdOf(update(1.5))).toBe('invalid');
    expect(pageIdOf(update(2 ** 31))).toBe('invalid');
    expect(pageIdOf(update('x'))).toBe('invalid');
    expect(pendingPageIds([update(3), update(3), search, update('x'), update(4)])).toEqual([3, 4]);
  });

  it('withholds preview and arguments of calls on pages the viewer may not show', () => {
    const calls = [update(2), update(7), search];
    const seen = callsForViewer(calls, { detail: true, showablePageIds: new Set([2]) });
    expect(seen[0]).toEqual(calls[0]);
    expect(seen[1]).toEqual({ ...calls[1], arguments: null, preview: [WITHHELD_PREVIEW] });
    expect(seen[2]).toEqual(calls[2]);
    expect(JSON.stringify(seen[1])).not.toMatch(/Old|New/);
  });

  it('shows previews but never arguments without detail access', () => {
    const seen = callsForViewer([update(2), search], { detail: false, showablePageIds: new Set([2]) });
    expect(seen.map((c) => c.arguments)).toEqual([null, null]);
    expect(seen[0]!.preview).toEqual(['seoTitle: "Old" -> "New"']);
  });

  it('treats an invalid page id as a page nobody may show', () => {
    const [seen] = callsForViewer([update('x')], { detail: true, showablePageIds: new Set([2]) });
    expect(seen).toMatchObject({ arguments: null, preview: [WITHHELD_PREVIEW] });
  });

  it('lets only detail readers see the owner’s groups, and a restricted configuration', () => {
    expect(mayReadOwnerGroups({ detail: true })).toBe(true);
    expect(mayReadOwnerGroups({ detail: false })).toBe(false);
    expect(mayReadRunConfiguration({ detail: false }, true)).toBe(true);
    expect(mayReadRunConfiguration({ detail: true }, false)).toBe(true);
    expect(mayReadRunConfiguration({ detail: false }, false)).toBe(false);
  });
});
