import type { PageWithText } from '../persistence/page-rows';
import { READ_AHEAD_MAX_AGE_MS, TextReads } from './text-reads';

const at = (pageId: number, workspaceId = 0) => ({ pageId, languageId: 0, workspaceId });
const read = (pageId: number): PageWithText => ({
  page: { id: pageId, parentId: null, siteId: 1, slug: `/p${pageId}`, sorting: 0, rootline: [pageId] },
  text: null,
  siteLanguageIds: [0],
});

describe('TextReads', () => {
  it('serves each page text once: its read, null for no page, undefined where none was read', () => {
    const reads = new TextReads([
      [at(1), read(1)],
      [at(1, 7), read(1)],
      [at(2), null],
    ]);
    expect(reads.take(at(1))?.page.id).toBe(1);
    expect(reads.take(at(1))).toBeUndefined();
    expect(reads.take(at(2))).toBeNull();
    expect(reads.take(at(3))).toBeUndefined();
    expect(reads.take(at(1, 7))?.page.id).toBe(1);
  });

  it('serves no read older than READ_AHEAD_MAX_AGE_MS: the write then reads afresh', () => {
    let now = 10_000;
    const reads = new TextReads(
      [
        [at(1), read(1)],
        [at(2), read(2)],
      ],
      now,
      () => now,
    );
    now += READ_AHEAD_MAX_AGE_MS;
    expect(reads.take(at(1))?.page.id).toBe(1);
    now += 1;
    expect(reads.take(at(2))).toBeUndefined();
  });
});
