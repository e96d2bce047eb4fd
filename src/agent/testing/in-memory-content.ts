import {
  type ContentPort,
  ok,
  PAGE_FIELDS,
  type PageChange,
  type PageFields,
  type PageLocator,
  type PageSearchHit,
  type PageView,
  type PortResult,
  refused,
  type RunOwner,
  type WrittenRecord,
} from '../tools/content-port';
import { PreviewChangedError } from '../runtime/errors';

/** A page text held by the in-memory content port. */
export interface MemoryPage extends PageFields {
  readonly pageId: number;
  readonly languageId: number;
  readonly slug: string;
}

/**
 * A `ContentPort` over a map, for unit tests and demos: workspaces share one set of texts,
 * `editable` says which pages each owner may edit (all when absent), `hidden` which they may
 * not see. Records every applied change.
 */
export class InMemoryContent implements ContentPort {
  readonly applied: PageChange[] = [];
  private readonly pages = new Map<string, MemoryPage>();

  constructor(
    pages: readonly MemoryPage[],
    private readonly rules: {
      editable?: (owner: RunOwner, pageId: number) => boolean;
      hidden?: readonly number[];
    } = {},
  ) {
    for (const p of pages) this.pages.set(key(p.pageId, p.languageId), p);
  }

  /** Changes a page text behind the run's back (a concurrent editor). */
  edit(pageId: number, languageId: number, fields: Partial<PageFields>): void {
    const page = this.pages.get(key(pageId, languageId));
    if (page) this.pages.set(key(pageId, languageId), { ...page, ...fields });
  }

  page(pageId: number, languageId: number): MemoryPage | undefined {
    return this.pages.get(key(pageId, languageId));
  }

  readPage(_owner: RunOwner, at: PageLocator): Promise<PortResult<PageView>> {
    const page = this.visible(at.pageId, at.languageId);
    if (!page) return Promise.resolve(refused(`Page ${at.pageId} (language ${at.languageId}) not found`));
    return Promise.resolve(ok({ ...page, workspaceId: at.workspaceId }));
  }

  search(_owner: RunOwner, query: string): Promise<PortResult<PageSearchHit[]>> {
    const q = query.toLowerCase();
    const hits = [...this.pages.values()]
      .filter((p) => !this.rules.hidden?.includes(p.pageId) && (p.title ?? '').toLowerCase().includes(q))
      .map((p) => ({ pageId: p.pageId, title: p.title ?? '', slug: p.slug }));
    return Promise.resolve(ok(hits));
  }

  previewUpdate(owner: RunOwner, change: PageChange): Promise<PortResult<PageFields>> {
    const page = this.editablePage(owner, change);
    if (!page.ok) return Promise.resolve(page);
    return Promise.resolve(ok(fieldsOf(page.value)));
  }

  applyUpdate(
    owner: RunOwner,
    change: PageChange,
    holds?: (current: PortResult<PageFields>) => boolean,
  ): Promise<PortResult<WrittenRecord>> {
    const page = this.editablePage(owner, change);
    if (holds && !holds(page.ok ? ok(fieldsOf(page.value)) : page)) {
      return Promise.reject(new PreviewChangedError());
    }
    if (!page.ok) return Promise.resolve(page);
    this.pages.set(key(change.pageId, change.languageId), { ...page.value, ...change.fields });
    this.applied.push(change);
    const id = `${change.pageId}:${change.languageId}:${change.workspaceId}`;
    return Promise.resolve(ok({ table: 'page_text', id }));
  }

  private visible(pageId: number, languageId: number): MemoryPage | undefined {
    return this.rules.hidden?.includes(pageId) ? undefined : this.pages.get(key(pageId, languageId));
  }

  private editablePage(owner: RunOwner, change: PageChange): PortResult<MemoryPage> {
    const page = this.visible(change.pageId, change.languageId);
    if (!page) return refused(`Page ${change.pageId} (language ${change.languageId}) not found`);
    if (this.rules.editable && !this.rules.editable(owner, change.pageId)) {
      return refused(`You may not edit page ${change.pageId} in language ${change.languageId}`);
    }
    return ok(page);
  }
}

function fieldsOf(page: MemoryPage): PageFields {
  return Object.fromEntries(PAGE_FIELDS.map((f) => [f, page[f]])) as PageFields;
}

function key(pageId: number, languageId: number): string {
  return `${pageId}:${languageId}`;
}
