/**
 * Who may show and edit which pages and languages (docs/security.md, docs/chat-and-skills.md).
 *
 * Pure functions over plain data, shared by every module that touches content (runs, agent
 * tools, conversations). Groups carry the ROOTS of page subtrees: a page belongs to a root's
 * subtree when its rootline (the ids from the tree's root down to the page itself) contains
 * that root. Permissions of a user's groups add up; admins may do everything.
 */

/** The part of a group the content policies read (a `GroupPermissions` fits). */
export interface ContentGroupPermissions {
  readonly showPageIds: readonly number[];
  readonly editPageIds: readonly number[];
  readonly editLanguageIds: readonly number[];
}

/** The part of a user the content policies read (an `AuthUser` fits). */
export interface ContentUser {
  readonly isAdmin: boolean;
  readonly groups: readonly ContentGroupPermissions[];
}

/** The part of a page the content policies read. */
export interface PageAccessRef {
  readonly id: number;
  /** Null for a page outside every site. */
  readonly siteId: number | null;
  /** Ids from the tree's root down to the page itself, inclusive. */
  readonly rootline: readonly number[];
}

/** The languages of a page outside every site: language 0 only. */
export const LANGUAGES_OUTSIDE_SITES: readonly number[] = [0];

/** Whether the page lies in the subtree of any of the given roots. */
export function inSubtreeOf(page: PageAccessRef, roots: readonly number[]): boolean {
  if (roots.length === 0) return false;
  // why: the page's own id is checked too, so a page stored with an empty rootline still
  // matches a grant on itself.
  return roots.includes(page.id) || page.rootline.some((id) => roots.includes(id));
}

/**
 * The subtree roots whose pages the user may show: the show roots plus the edit roots (may
 * edit implies may show), deduplicated and sorted; `'all'` for admins. Lets a repository
 * filter in SQL (`rootline && roots OR id = ANY(roots)`) with exactly the rule of {@link mayShowPage}.
 */
export function showableRoots(user: ContentUser): 'all' | number[] {
  if (user.isAdmin) return 'all';
  const roots = new Set<number>();
  for (const g of user.groups) {
    for (const id of g.showPageIds) roots.add(id);
    for (const id of g.editPageIds) roots.add(id);
  }
  return [...roots].sort((a, b) => a - b);
}

/** The subtree roots whose pages the user may edit; `'all'` for admins. */
export function editableRoots(user: ContentUser): 'all' | number[] {
  if (user.isAdmin) return 'all';
  const roots = new Set(user.groups.flatMap((g) => g.editPageIds));
  return [...roots].sort((a, b) => a - b);
}

/**
 * May the user show (see, read, chat about) the page? Admins always; others where one of
 * their groups may show or edit a subtree the page lies in.
 */
export function mayShowPage(user: ContentUser, page: PageAccessRef): boolean {
  const roots = showableRoots(user);
  return roots === 'all' || inSubtreeOf(page, roots);
}

/** May the user edit the page (in some language)? Admins always; others by edit subtrees. */
export function mayEditPage(user: ContentUser, page: PageAccessRef): boolean {
  const roots = editableRoots(user);
  return roots === 'all' || inSubtreeOf(page, roots);
}

/**
 * The languages a page has: its site's languages, or language 0 alone for a page outside
 * every site (whatever list the caller passes). Sorted, deduplicated.
 */
export function pageLanguageIds(page: PageAccessRef, siteLanguageIds: readonly number[]): number[] {
  if (page.siteId === null) return [...LANGUAGES_OUTSIDE_SITES];
  return [...new Set(siteLanguageIds)].sort((a, b) => a - b);
}

/** The language ids the user's groups may edit (the union); `'all'` for admins. */
export function editableLanguageIds(user: ContentUser): 'all' | number[] {
  if (user.isAdmin) return 'all';
  const ids = new Set(user.groups.flatMap((g) => g.editLanguageIds));
  return [...ids].sort((a, b) => a - b);
}

/**
 * May the user work in this language of this page? The language must be one of the page's
 * languages ({@link pageLanguageIds}), the user must be allowed to show the page, and one of
 * their groups must grant the language (admins: every language of the page).
 *
 * This is the language check of a conversation's start (LANGUAGE_NOT_ACCESSIBLE): it does
 * NOT require page edit rights (the "restricted" demo group may work in language 0 of the
 * pages it shows without editing them). Writing text needs {@link mayEditPageText}.
 */
export function mayEditLanguage(
  user: ContentUser,
  page: PageAccessRef,
  languageId: number,
  siteLanguageIds: readonly number[],
): boolean {
  if (!pageLanguageIds(page, siteLanguageIds).includes(languageId)) return false;
  if (!mayShowPage(user, page)) return false;
  const languages = editableLanguageIds(user);
  return languages === 'all' || languages.includes(languageId);
}

/** The page's languages the user may work in ({@link mayEditLanguage}), ascending. */
export function editableLanguages(
  user: ContentUser,
  page: PageAccessRef,
  siteLanguageIds: readonly number[],
): number[] {
  return pageLanguageIds(page, siteLanguageIds).filter((id) =>
    mayEditLanguage(user, page, id, siteLanguageIds),
  );
}

/**
 * May the user write the page's text in this language (any workspace)? Both the page
 * ({@link mayEditPage}) and the language ({@link mayEditLanguage}). What `pages_update` and
 * `PagesService.updateText` check for the run's owner.
 */
export function mayEditPageText(
  user: ContentUser,
  page: PageAccessRef,
  languageId: number,
  siteLanguageIds: readonly number[],
): boolean {
  return mayEditPage(user, page) && mayEditLanguage(user, page, languageId, siteLanguageIds);
}
