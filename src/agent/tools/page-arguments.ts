import type { RunSubject, ToolArguments } from '../runtime/types';

/** Schema members of a page locator (after defaults are resolved). */
export const PAGE_LOCATOR_PROPERTIES = {
  pageId: {
    type: 'integer',
    minimum: 1,
    description: 'The page id; defaults to the page this run is about.',
  },
  languageId: {
    type: 'integer',
    minimum: 0,
    description: 'The language id (0 = default language); defaults to the run language.',
  },
} as const;

/**
 * Fills `pageId` / `languageId` from the run's subject where the model left them out, and
 * reads numeric strings ("3") as numbers; anything else is left for the schema to refuse.
 */
export function resolvePageArguments(args: ToolArguments, subject: RunSubject): ToolArguments {
  return {
    ...args,
    pageId: asInteger(args.pageId) ?? subject.pageId,
    languageId: asInteger(args.languageId) ?? subject.languageId,
  };
}

function asInteger(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string' && /^\d{1,12}$/.test(value.trim())) return Number(value.trim());
  return value;
}
