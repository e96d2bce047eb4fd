import type { PendingCall } from '../../../agent';
import { approveRefusal } from './approve-refusal';
import { deciderPermits, DeciderPageRights, gatePageIds } from './decider-rule';

const call = (toolName: string, writes: boolean, args: Record<string, unknown>): PendingCall => ({
  callId: toolName,
  toolName,
  writes,
  arguments: args,
  preview: [],
});
const update = (pageId: unknown, languageId: unknown = 0) =>
  call('pages_update', true, { pageId, languageId, seoTitle: 'x' });
const read = (pageId: unknown) => call('pages_read', false, { pageId, languageId: 0 });

// page 2: shown, text writable in 0 and 1; page 3: shown only; page 7 is absent (hidden).
const rights = new Map<number, DeciderPageRights>([
  [2, { show: true, writableLanguageIds: [0, 1] }],
  [3, { show: true, writableLanguageIds: [] }],
]);

describe('decider rule', () => {
  it('names the pages of the writes (approval) or of every call (input)', () => {
    const calls = [update(2), read(3), update(2), call('pages_search', false, { query: 'x' }), update('x')];
    expect(gatePageIds('APPROVAL', calls)).toEqual([2]);
    expect(gatePageIds('INPUT', calls)).toEqual([2, 3]);
  });

  it('approval: every write on a page the decider may show and write in that language', () => {
    expect(deciderPermits('APPROVAL', [update(2, 1)], rights)).toBe(true);
    expect(deciderPermits('APPROVAL', [update(2, 2)], rights)).toBe(false);
    expect(deciderPermits('APPROVAL', [update(3)], rights)).toBe(false);
    expect(deciderPermits('APPROVAL', [update(7)], rights)).toBe(false);
    expect(deciderPermits('APPROVAL', [update(2), update(7)], rights)).toBe(false);
    // reads are not judged for an approval; unknown tools pass
    expect(deciderPermits('APPROVAL', [read(7), update(2)], rights)).toBe(true);
    expect(deciderPermits('APPROVAL', [call('drop_tables', true, {})], rights)).toBe(true);
  });

  it('input: pages_read needs a page the decider may show', () => {
    expect(deciderPermits('INPUT', [read(3), call('ask_user', false, {})], rights)).toBe(true);
    expect(deciderPermits('INPUT', [read(7)], rights)).toBe(false);
  });

  it('says why approving is refused: four-eyes first, then the gate', () => {
    expect(approveRefusal({ fourEyes: true, isInitiator: true, gatePasses: false })).toBe(
      'SELF_APPROVAL_DENIED',
    );
    expect(approveRefusal({ fourEyes: true, isInitiator: false, gatePasses: false })).toBe(
      'APPROVER_NOT_PERMITTED',
    );
    expect(approveRefusal({ fourEyes: false, isInitiator: true, gatePasses: true })).toBeNull();
  });
});
