/**
 * The editable fields of a page text and the longest value each takes. Shared by the content
 * module, which stores and checks them, and the agent's `pages_update` tool, whose JSON Schema
 * tells the model the same limits: one table, so the two cannot drift apart.
 */

/** The editable fields of a page text, in the order changes and previews list them. */
export const PAGE_TEXT_FIELDS = ['title', 'body', 'seoTitle', 'seoDescription'] as const;

export type PageTextField = (typeof PAGE_TEXT_FIELDS)[number];

/**
 * Longest value each field takes, in characters (title and SEO title are varchar(500) columns).
 * Counted as {@link characterCount} counts them.
 */
export const PAGE_TEXT_LIMITS: Readonly<Record<PageTextField, number>> = {
  title: 500,
  body: 200_000,
  seoTitle: 500,
  seoDescription: 5_000,
};

/**
 * The characters of a string as PostgreSQL's varchar(n) and JSON Schema's maxLength count
 * them: Unicode code points. why not `length`: it counts UTF-16 units, two for every character
 * outside the Basic Multilingual Plane (most emoji), so a 300-emoji title that fits its column
 * would be refused as 600 long.
 */
export function characterCount(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // a high surrogate followed by a low one is one character in two units
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** The first `n` characters of a string (code points: a surrogate pair is never cut in two). */
export function firstCharacters(value: string, n: number): string {
  if (value.length <= n) return value;
  let end = 0;
  for (let taken = 0; taken < n && end < value.length; taken++) {
    const unit = value.charCodeAt(end);
    const pair = unit >= 0xd800 && unit <= 0xdbff && end + 1 < value.length;
    const next = pair ? value.charCodeAt(end + 1) : 0;
    end += pair && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return value.slice(0, end);
}

/** Whether a value is longer than its field takes; cheap for the common case of short values. */
export function exceedsPageTextLimit(field: PageTextField, value: string): boolean {
  const limit = PAGE_TEXT_LIMITS[field];
  // why: a string's code points never outnumber its UTF-16 units, so one within the limit in
  // units is within it in characters without a scan.
  return value.length > limit && characterCount(value) > limit;
}
