import type { PageWithText } from '../persistence/page-rows';

/** A page text: page, language, workspace (0 = live). */
export interface PageTextLocator {
  readonly pageId: number;
  readonly languageId: number;
  readonly workspaceId: number;
}

const keyOf = (at: PageTextLocator): string => `${at.pageId}:${at.languageId}:${at.workspaceId}`;

/**
 * Page texts read ahead, in one statement, for writes that follow (`PagesService.readAhead`): a
 * worker's pickup reads what the approved writes of all the runs it took start from. Each read
 * serves the first guarded write of its page text (`take`), which is guarded on that text when
 * it is sent, so a text changed since the read is caught there as with a read of its own; later
 * writes of the same text read it afresh.
 */
export class TextReads {
  private readonly reads = new Map<string, PageWithText | null>();

  constructor(entries: ReadonlyArray<readonly [PageTextLocator, PageWithText | null]> = []) {
    for (const [at, read] of entries) this.reads.set(keyOf(at), read);
  }

  /** The read of this page text (null: no such page), once; undefined where none was read ahead. */
  take(at: PageTextLocator): PageWithText | null | undefined {
    const key = keyOf(at);
    if (!this.reads.has(key)) return undefined;
    const read = this.reads.get(key) ?? null;
    this.reads.delete(key);
    return read;
  }
}
