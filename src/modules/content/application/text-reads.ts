import type { PageWithText } from '../persistence/page-rows';

/** A page text: page, language, workspace (0 = live). */
export interface PageTextLocator {
  readonly pageId: number;
  readonly languageId: number;
  readonly workspaceId: number;
}

/**
 * How long a read serves a write. why: the text is guarded when the write is sent, but the
 * owner's rights are judged on the read; a run claimed ahead of a free slot (WORKER_PREFETCH) may
 * wait for one behind model calls of seconds, and its write then reads afresh.
 */
export const READ_AHEAD_MAX_AGE_MS = 1000;

const keyOf = (at: PageTextLocator): string => `${at.pageId}:${at.languageId}:${at.workspaceId}`;

/**
 * Page texts read ahead, in one statement, for writes that follow (`PagesService.readAhead`): a
 * worker's pickup reads what the approved writes of all the runs it took start from. Each read
 * serves the first guarded write of its page text (`take`) within `READ_AHEAD_MAX_AGE_MS`; that
 * write is guarded on the text when it is sent, so a text changed since the read is caught there
 * as with a read of its own. Later or later-coming writes of the same text read it afresh.
 */
export class TextReads {
  private readonly reads = new Map<string, PageWithText | null>();

  constructor(
    entries: ReadonlyArray<readonly [PageTextLocator, PageWithText | null]> = [],
    private readonly readAt = Date.now(),
    private readonly now: () => number = Date.now,
  ) {
    for (const [at, read] of entries) this.reads.set(keyOf(at), read);
  }

  /**
   * The read of this page text (null: no such page), once; undefined where none was read ahead,
   * or the read is older than `READ_AHEAD_MAX_AGE_MS`.
   */
  take(at: PageTextLocator): PageWithText | null | undefined {
    const key = keyOf(at);
    if (!this.reads.has(key)) return undefined;
    const read = this.reads.get(key) ?? null;
    this.reads.delete(key);
    return this.now() - this.readAt > READ_AHEAD_MAX_AGE_MS ? undefined : read;
  }
}
