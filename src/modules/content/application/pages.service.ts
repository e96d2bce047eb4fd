import { Injectable } from '@nestjs/common';
import { mappedJoin, type JoinedRead } from '../../../platform/database/joined-read';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { badInput } from '../../../common/refusal';
import {
  ContentUser,
  mayEditLanguage,
  mayEditPage,
  mayShowPage,
  pageLanguageIds,
  showableRoots,
} from '../core/content-access.policy';
import { languageNotAccessible, pageNotAccessible } from '../core/content.refusals';
import {
  LIVE_WORKSPACE,
  PageSearchHit,
  PageTextView,
  PageView,
  SiteLanguageView,
} from '../core/content.types';
import {
  applyPageTextChanges,
  EMPTY_PAGE_TEXT,
  PageTextChange,
  pageTextChanges,
  PageTextFields,
  PageTextPatch,
} from '../core/page-text-changes';
import { ContentRepository } from '../persistence/content.repository';
import type { PageWithText } from '../persistence/page-rows';
import { guardedCopy, guardedUpdate, type GuardedTextWrite } from '../persistence/guarded-text-write';
import { TextReads, type PageTextLocator } from './text-reads';

/** A change of one page's text in one language and workspace, on behalf of a user. */
export interface PageTextUpdate extends PageTextPatch {
  readonly pageId: number;
  readonly languageId: number;
  /** 0 = live; any other workspace gets its own copy of the live text on the first write. */
  readonly workspaceId: number;
}

/** What a text update did (or, from `planTextUpdate`, would do). */
export interface PageTextUpdateResult {
  readonly page: PageView;
  readonly languageId: number;
  readonly workspaceId: number;
  /** The fields that changed, in field order; empty when the update changed nothing. */
  readonly changes: readonly PageTextChange[];
  /** True when this update created the text row of the workspace. */
  readonly created: boolean;
  /** The text after the update (unchanged text where nothing changed). */
  readonly text: PageTextFields;
}

/** A page read for a user: the page, its text in one language and workspace, its languages. */
export interface PageRead {
  readonly page: PageView;
  readonly text: PageTextView | null;
  readonly languageIds: readonly number[];
}

/** A page with its languages: what the content policies need to judge it for any user. */
export interface PageAccess {
  readonly page: PageView;
  readonly languageIds: readonly number[];
}

export const SEARCH_MAX_LIMIT = 50;
const SEARCH_MAX_QUERY = 200;

function checkLanguageAndWorkspace(languageId: number, workspaceId: number): void {
  if (!Number.isInteger(languageId) || languageId < 0 || languageId > 2_147_483_647) {
    throw badInput('languageId must be a non-negative integer', { field: 'languageId' });
  }
  if (!Number.isInteger(workspaceId) || workspaceId < 0 || workspaceId > 2_147_483_647) {
    throw badInput('workspaceId must be a non-negative integer', { field: 'workspaceId' });
  }
}

/** `%`, `_` and `\` stand for themselves in a search. */
const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Pages and their texts for other modules: the agent tools (pages_read, pages_search,
 * pages_update run as the run's owner), runs and conversations. Methods take the user whose
 * rights apply explicitly (an `AuthUser` fits); inside a caller's transaction they work in it.
 */
@Injectable()
export class PagesService {
  constructor(
    private readonly repository: ContentRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  /** The page, or null where it does not exist or the user may not show it (alike). */
  async getPageForUser(user: ContentUser, pageId: number): Promise<PageView | null> {
    const page = await this.repository.findPage(pageId);
    return page && mayShowPage(user, page) ? page : null;
  }

  /**
   * The page a run without a subject is about: the root page of the first site (the demo's
   * "Home"); null where there is no site. No permission check: tools check the owner's.
   */
  async defaultPageId(): Promise<number | null> {
    return this.repository.firstRootPageId();
  }

  /** The page's site languages with code and title (empty for a page outside every site). */
  async siteLanguagesOf(page: PageView): Promise<SiteLanguageView[]> {
    if (page.siteId === null) return [];
    return this.repository.siteLanguages([page.siteId]);
  }

  /**
   * Several pages with their languages, unfiltered (the caller applies the policies for the
   * user it judges): one statement whatever the number of pages; unknown ids are absent.
   */
  async accessOf(pageIds: readonly number[]): Promise<Map<number, PageAccess>> {
    const pages = await this.repository.findPagesWithSiteLanguages([...new Set(pageIds)]);
    return new Map(
      pages.map(({ page, siteLanguageIds }) => [
        page.id,
        { page, languageIds: pageLanguageIds(page, siteLanguageIds) },
      ]),
    );
  }

  /**
   * The access of the page a run is about, read in the run's own statement, joined on the run's
   * subject page id (see JoinedRead): its subject page, or for a run without one the page its page
   * tools default to (`defaultPageId`). What `accessOf` answers for that page, without a round
   * trip of its own.
   */
  joinedRunPageAccess(): JoinedRead<PageAccess> {
    return mappedJoin(this.repository.joinedRunPageWithSiteLanguages, (found) => ({
      page: found.page,
      languageIds: pageLanguageIds(found.page, found.siteLanguageIds),
    }));
  }

  /** The page's languages: its site's language ids, or `[0]` for a page outside every site. */
  async siteLanguageIds(page: PageView): Promise<number[]> {
    if (page.siteId === null) return pageLanguageIds(page, []);
    const languages = await this.repository.siteLanguages([page.siteId]);
    return pageLanguageIds(
      page,
      languages.map((l) => l.languageId),
    );
  }

  /**
   * Refuses LANGUAGE_NOT_ACCESSIBLE where the user may not work in this language of the page
   * (`mayEditLanguage`: one of the page's languages, a page the user may show, a language one
   * of their groups grants). The language check of a conversation's view and of a run's subject.
   */
  async assertLanguageAccess(user: ContentUser, page: PageView, languageId: number): Promise<void> {
    const languages = await this.siteLanguageIds(page);
    if (!Number.isInteger(languageId) || !mayEditLanguage(user, page, languageId, languages)) {
      throw languageNotAccessible(page.id, languageId);
    }
  }

  /**
   * The page's text in one language and workspace; a workspace without its own row falls back
   * to the live text (the result's `workspaceId` says which row answered). Null where the page
   * has no text in that language. No permission check: the caller has checked the page.
   */
  async readText(
    pageId: number,
    languageId: number,
    workspaceId: number = LIVE_WORKSPACE,
  ): Promise<PageTextView | null> {
    const workspaces = workspaceId === LIVE_WORKSPACE ? [LIVE_WORKSPACE] : [workspaceId, LIVE_WORKSPACE];
    const rows = await this.repository.findTexts([pageId], languageId, workspaces);
    return (
      rows.find((r) => r.workspaceId === workspaceId) ??
      rows.find((r) => r.workspaceId === LIVE_WORKSPACE) ??
      null
    );
  }

  /**
   * A page read with its languages: the page (PAGE_NOT_ACCESSIBLE unless the user may show
   * it), its text in the language and workspace (live fallback; null where there is none) and
   * its languages. BAD_USER_INPUT for a negative language or workspace.
   */
  async readPageForUser(
    user: ContentUser,
    pageId: number,
    languageId = 0,
    workspaceId: number = LIVE_WORKSPACE,
  ): Promise<PageRead> {
    const { page, text } = await this.readPageText(user, pageId, languageId, workspaceId);
    return { page, text, languageIds: await this.siteLanguageIds(page) };
  }

  /**
   * The page the user may show with its text in one language and workspace (live fallback;
   * null where there is none), in one statement: what the agent's `pages_read` returns.
   * Refuses as `readPageForUser` does.
   */
  async readPageText(
    user: ContentUser,
    pageId: number,
    languageId = 0,
    workspaceId: number = LIVE_WORKSPACE,
  ): Promise<Omit<PageRead, 'languageIds'>> {
    checkLanguageAndWorkspace(languageId, workspaceId);
    const found = await this.repository.findPageWithText(pageId, languageId, workspaceId);
    // why: an unknown page and one the user may not show are refused alike (no text leaves).
    if (!found || !mayShowPage(user, found.page)) throw pageNotAccessible(pageId);
    return found;
  }

  /**
   * Pages the user may show whose live title or body contains `query` (case-insensitive;
   * `%` and `_` match themselves), one hit per page, by page id, at most `limit` (1..50).
   * BAD_USER_INPUT for a blank query or one over 200 characters.
   */
  async search(user: ContentUser, query: string, limit = 10): Promise<PageSearchHit[]> {
    const text = typeof query === 'string' ? query.trim() : '';
    if (text === '') throw badInput('query must not be blank', { field: 'query' });
    if (text.length > SEARCH_MAX_QUERY) {
      throw badInput(`query is longer than ${SEARCH_MAX_QUERY} characters`, { field: 'query' });
    }
    const bounded = Math.min(Math.max(Math.trunc(limit) || 1, 1), SEARCH_MAX_LIMIT);
    const hits = await this.repository.searchLive(`%${escapeLike(text)}%`, showableRoots(user), bounded);
    return hits;
  }

  /**
   * Checks the user's rights to write the text and computes the changes without writing.
   * Refusals (all before any write): BAD_USER_INPUT (ids, field types and limits),
   * PAGE_NOT_ACCESSIBLE (unknown or hidden page; a page the user may not edit),
   * LANGUAGE_NOT_ACCESSIBLE (not a language of the page's site, or not one the user may edit).
   */
  async planTextUpdate(user: ContentUser, input: PageTextUpdate): Promise<PageTextUpdateResult> {
    const { page, text } = await this.writableText(user, input, false);
    const current = text ?? EMPTY_PAGE_TEXT;
    return this.result(page, input, pageTextChanges(current, input), false, current);
  }

  /**
   * Writes the changed fields into the given workspace as `user` (page and language rights,
   * see `planTextUpdate` for the refusals, all before any write). A workspace without its own
   * row first gets a copy of the live text, so live stays untouched. An update that changes
   * nothing writes nothing. Runs in the caller's transaction where there is one. `before` is
   * given the text the update starts from, read under the write's lock, before anything is
   * written: what it throws ends the update with nothing written.
   */
  async updateText(
    user: ContentUser,
    input: PageTextUpdate,
    before?: (current: PageTextFields) => void,
  ): Promise<PageTextUpdateResult> {
    return this.transactions.run(() => this.updateTextIn(user, input, before));
  }

  /**
   * `updateText` as a write for a caller to send in its own statement (`GuardedTextWrite`): the
   * rights are checked and the text the update starts from is read without a lock (refusals
   * as `planTextUpdate`), given to `before` (what it throws ends the update), and the changes
   * are written only while that text is still there when the caller's statement runs.
   * 'unchanged': the update changes nothing, so there is nothing to write (as `updateText`).
   * 'no-text': the page has no text in the language yet, not even live: `updateText` does that.
   */
  async planGuardedTextUpdate(
    user: ContentUser,
    input: PageTextUpdate,
    before?: (current: PageTextFields) => void,
    ahead?: TextReads,
  ): Promise<GuardedTextWrite | 'unchanged' | 'no-text'> {
    const { text } = await this.writableText(user, input, false, ahead?.take(input));
    if (!text) return 'no-text';
    before?.(text);
    const changes = pageTextChanges(text, input);
    if (changes.length === 0) return 'unchanged';
    const at = { pageId: input.pageId, languageId: input.languageId, workspaceId: input.workspaceId };
    return text.workspaceId === input.workspaceId
      ? guardedUpdate(at, text, changes)
      : guardedCopy(at, text, applyPageTextChanges(text, changes));
  }

  /**
   * The texts guarded writes will start from, for several at once (one statement), to hand to
   * `planGuardedTextUpdate`; the user's rights are judged there, on this read.
   */
  async readAhead(at: readonly PageTextLocator[]): Promise<TextReads> {
    const reads = await this.repository.findPagesAccessWithTexts(at);
    return new TextReads(at.map((l, i) => [l, reads[i] ?? null] as const));
  }

  /**
   * The check and the current text in one statement, with the text row locked, so the diff is
   * computed against what the write replaces (a concurrent update is neither lost in the result
   * nor overwritten field by field); then one UPDATE of the workspace's row, or one INSERT of
   * it (the live text with the changes) where the workspace has none yet.
   */
  private async updateTextIn(
    user: ContentUser,
    input: PageTextUpdate,
    before?: (current: PageTextFields) => void,
  ): Promise<PageTextUpdateResult> {
    const { page, text } = await this.writableText(user, input, true);
    const current = text ?? EMPTY_PAGE_TEXT;
    before?.(current);
    const changes = pageTextChanges(current, input);
    if (changes.length === 0) return this.result(page, input, changes, false, current);
    const { pageId, languageId, workspaceId } = input;
    if (text?.workspaceId !== workspaceId) {
      const written = applyPageTextChanges(current, changes);
      if (await this.repository.insertText(pageId, languageId, workspaceId, written)) {
        return this.result(page, input, changes, true, written);
      }
    }
    // why: the workspace's own row: the one locked above, or one a concurrent first write
    // committed while this one waited on the insert; the latter is locked and diffed anew.
    const own =
      text?.workspaceId === workspaceId
        ? text
        : await this.repository.findText(pageId, languageId, workspaceId, { lock: true });
    if (!own)
      throw new Error(`page_text ${pageId}/${languageId}/${workspaceId} vanished inside the transaction`);
    if (own !== text) before?.(own);
    const ownChanges = own === text ? changes : pageTextChanges(own, input);
    const updated = await this.repository.updateTextFields(pageId, languageId, workspaceId, ownChanges);
    if (ownChanges.length > 0 && updated !== 1)
      throw new Error(`page_text update changed ${updated} rows, expected 1`);
    return this.result(page, input, ownChanges, false, applyPageTextChanges(own, ownChanges));
  }

  /**
   * The page and its current text (workspace row, else live) once the user may write it:
   * BAD_USER_INPUT (ids), PAGE_NOT_ACCESSIBLE (unknown or hidden page, or one the user may not
   * edit), LANGUAGE_NOT_ACCESSIBLE. One statement, run for every preview and write, unless the
   * page and text were `read` ahead already (null: no such page).
   */
  private async writableText(
    user: ContentUser,
    input: PageTextUpdate,
    lock: boolean,
    read?: PageWithText | null,
  ): Promise<{ page: PageView; text: PageTextView | null }> {
    checkLanguageAndWorkspace(input.languageId, input.workspaceId);
    const found =
      read !== undefined
        ? read
        : await this.repository.findPageAccessWithText(input.pageId, input.languageId, input.workspaceId, {
            lock,
          });
    if (!found || !mayShowPage(user, found.page)) throw pageNotAccessible(input.pageId);
    const { page, text } = found;
    if (!mayEditPage(user, page)) throw pageNotAccessible(page.id, 'edit');
    if (!mayEditLanguage(user, page, input.languageId, pageLanguageIds(page, found.siteLanguageIds))) {
      throw languageNotAccessible(page.id, input.languageId);
    }
    return { page, text };
  }

  private result(
    page: PageView,
    input: PageTextUpdate,
    changes: readonly PageTextChange[],
    created: boolean,
    text: PageTextFields,
  ): PageTextUpdateResult {
    const { title, body, seoTitle, seoDescription } = text;
    return {
      page,
      languageId: input.languageId,
      workspaceId: input.workspaceId,
      changes,
      created,
      text: { title, body, seoTitle, seoDescription },
    };
  }
}
