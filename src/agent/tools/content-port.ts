/**
 * What the built-in page tools need from the content module. The runs module implements it;
 * every method acts AS THE RUN'S OWNER and checks the owner's permissions itself: a page the
 * owner may not show or edit is an `{ ok: false }` result (the model reads it as a tool
 * error), never an exception. An exception means a fault (the database is down).
 */
import { PAGE_TEXT_FIELDS, type PageTextField } from '../../common/page-text';

/** The run's owner: the initiating user, as whom tools run (never the decider). */
export interface RunOwner {
  readonly id: number;
}

/** A page text: page, language, workspace (0 = live). */
export interface PageLocator {
  readonly pageId: number;
  readonly languageId: number;
  readonly workspaceId: number;
}

/** The editable fields of a page text (the content module's, `common/page-text`). */
export type PageField = PageTextField;

/** The fields `pages_update` may change, in the order previews list them. */
export const PAGE_FIELDS: readonly PageField[] = PAGE_TEXT_FIELDS;

/** Current values of a page text's editable fields (null: not set). */
export type PageFields = Readonly<Record<PageField, string | null>>;

/** A page text as `pages_read` returns it. */
export interface PageView extends PageLocator, PageFields {
  readonly slug: string;
}

/** One search hit. */
export interface PageSearchHit {
  readonly pageId: number;
  readonly title: string;
  readonly slug: string;
}

/** A change `pages_update` proposes: the locator plus the fields it sets. */
export interface PageChange extends PageLocator {
  readonly fields: Partial<Record<PageField, string>>;
}

/** A record a tool wrote (recorded as a TOOL_WRITE step: metadata only). */
export interface WrittenRecord {
  readonly table: string;
  readonly id: string | number;
}

/** Success with a value, or a refusal the model reads as a tool error. */
export type PortResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** The content module as the page tools see it (implemented by the runs module). */
export interface ContentPort {
  /** The page text, where the owner may show the page. */
  readPage(owner: RunOwner, page: PageLocator): Promise<PortResult<PageView>>;
  /** Pages the owner may show whose title, slug or text match `query`. */
  search(owner: RunOwner, query: string, workspaceId: number): Promise<PortResult<PageSearchHit[]>>;
  /**
   * The current values of the page text the change would edit, where the owner may edit that
   * page and language (used to build the preview, and again at resume to detect a change).
   */
  previewUpdate(owner: RunOwner, change: PageChange): Promise<PortResult<PageFields>>;
  /**
   * Applies the change in `change.workspaceId`, where the owner may edit; names the written
   * record. With `holds`, the text the change starts from (or the refusal) is given to `holds`
   * first, read either under the write's lock or with the write guarded on it (it happens only
   * while the text is still that one); where it answers false, nothing is written and
   * `PreviewChangedError` is thrown (what the decider approved no longer holds).
   */
  applyUpdate(
    owner: RunOwner,
    change: PageChange,
    holds?: (current: PortResult<PageFields>) => boolean,
  ): Promise<PortResult<WrittenRecord>>;
}

/** Shorthand for a successful port result. */
export function ok<T>(value: T): PortResult<T> {
  return { ok: true, value };
}

/** Shorthand for a refused port result. */
export function refused<T = never>(error: string): PortResult<T> {
  return { ok: false, error };
}
