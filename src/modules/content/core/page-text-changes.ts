import {
  exceedsPageTextLimit,
  PAGE_TEXT_FIELDS,
  PAGE_TEXT_LIMITS,
  type PageTextField,
} from '../../../common/page-text';
import { badInput } from '../../../common/refusal';

/** The editable fields of a page's text in one language and workspace. */
export interface PageTextFields {
  readonly title: string;
  readonly body: string;
  readonly seoTitle: string | null;
  readonly seoDescription: string | null;
}

/**
 * A requested change of a page text. An absent (undefined) field stays as it is; `null`
 * clears an SEO field.
 */
export interface PageTextPatch {
  readonly title?: string;
  readonly body?: string;
  readonly seoTitle?: string | null;
  readonly seoDescription?: string | null;
}

/** One field that a patch changes: its value before and after. */
export interface PageTextChange {
  readonly field: PageTextField;
  readonly from: string | null;
  readonly to: string | null;
}

/** The text a page gets in a language where it has none yet. */
export const EMPTY_PAGE_TEXT: PageTextFields = { title: '', body: '', seoTitle: null, seoDescription: null };

function checkField(field: PageTextField, value: unknown): void {
  if (value === undefined) return;
  const nullable = field === 'seoTitle' || field === 'seoDescription';
  if (value === null && nullable) return;
  if (typeof value !== 'string') throw badInput(`${field} must be a string`, { field });
  if (exceedsPageTextLimit(field, value)) {
    throw badInput(`${field} is longer than ${PAGE_TEXT_LIMITS[field]} characters`, { field });
  }
  if (field === 'title' && value.trim() === '') throw badInput('title must not be blank', { field });
}

/**
 * The fields a patch really changes against the current text, in {@link PAGE_TEXT_FIELDS}
 * order; fields given with their current value are no change. Refuses (BAD_USER_INPUT) a
 * value of the wrong type, a blank title and a value over its limit. Values arrive from
 * model-written tool arguments, so their types are checked here rather than trusted.
 */
export function pageTextChanges(current: PageTextFields, patch: PageTextPatch): PageTextChange[] {
  const changes: PageTextChange[] = [];
  for (const field of PAGE_TEXT_FIELDS) {
    const next: unknown = patch[field];
    checkField(field, next);
    if (next === undefined || next === current[field]) continue;
    changes.push({ field, from: current[field], to: next as string | null });
  }
  return changes;
}

/** The text after the changes are applied. */
export function applyPageTextChanges(
  current: PageTextFields,
  changes: readonly PageTextChange[],
): PageTextFields {
  const next: Record<PageTextField, string | null> = { ...current };
  for (const c of changes) next[c.field] = c.to;
  return next as unknown as PageTextFields;
}
