import { PageAccessRef } from './content-access.policy';
import { PageTextFields } from './page-text-changes';

/** A page as the application sees it (no text; texts are per language and workspace). */
export interface PageView extends PageAccessRef {
  readonly id: number;
  readonly parentId: number | null;
  readonly siteId: number | null;
  readonly slug: string;
  readonly sorting: number;
  readonly rootline: readonly number[];
}

/** A page's text in one language, as stored in one workspace (0 = live). */
export interface PageTextView extends PageTextFields {
  readonly pageId: number;
  readonly languageId: number;
  /** The workspace the row belongs to: 0 where a read fell back to live. */
  readonly workspaceId: number;
}

export interface SiteView {
  readonly id: number;
  readonly name: string;
}

export interface SiteLanguageView {
  readonly siteId: number;
  readonly languageId: number;
  readonly isoCode: string;
  readonly title: string;
}

/** One page found by a search, with the live text that matched (the lowest matching language). */
export interface PageSearchHit {
  readonly pageId: number;
  readonly siteId: number | null;
  readonly slug: string;
  readonly languageId: number;
  readonly title: string;
}

/** The workspace everyone sees. */
export const LIVE_WORKSPACE = 0;
