import { Refusal } from '../../../common/refusal';

/**
 * The page is unknown, or the user may not show it, or (for a write) may not edit it. One
 * code and, for the first two, one message, so a refusal never tells a hidden page from a
 * missing one.
 */
export function pageNotAccessible(pageId: number, reason: 'show' | 'edit' = 'show'): Refusal {
  const message = reason === 'show' ? `Page ${pageId} is not accessible` : `You may not edit page ${pageId}`;
  return new Refusal('PAGE_NOT_ACCESSIBLE', message, { pageId });
}

/** The language is not one of the page's languages, or not one the user may edit. */
export function languageNotAccessible(pageId: number, languageId: number): Refusal {
  return new Refusal('LANGUAGE_NOT_ACCESSIBLE', `You may not edit language ${languageId} of page ${pageId}`, {
    pageId,
    languageId,
  });
}
