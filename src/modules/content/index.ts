export { ContentModule } from './content.module';
export { PagesService } from './application/pages.service';
export type { PageAccess, PageRead, PageTextUpdate, PageTextUpdateResult } from './application/pages.service';
export type { GuardedTextWrite } from './persistence/guarded-text-write';
export { PageAccessLookup } from './application/page-access-lookup';
export type { PageTextLocator, TextReads } from './application/text-reads';
export {
  editableLanguageIds,
  editableLanguages,
  editableRoots,
  inSubtreeOf,
  LANGUAGES_OUTSIDE_SITES,
  mayEditLanguage,
  mayEditPage,
  mayEditPageText,
  mayShowPage,
  pageLanguageIds,
  showableRoots,
} from './core/content-access.policy';
export type { ContentGroupPermissions, ContentUser, PageAccessRef } from './core/content-access.policy';
export { languageNotAccessible, pageNotAccessible } from './core/content.refusals';
export { LIVE_WORKSPACE } from './core/content.types';
export type { PageSearchHit, PageTextView, PageView, SiteLanguageView, SiteView } from './core/content.types';
