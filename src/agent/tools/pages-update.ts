import { createHash } from 'node:crypto';
import { characterCount, firstCharacters, PAGE_TEXT_LIMITS } from '../../common/page-text';
import type { ToolArguments } from '../runtime/types';
import {
  PAGE_FIELDS,
  type PageChange,
  type PageField,
  type PageFields,
  type PortResult,
} from './content-port';
import { PAGE_LOCATOR_PROPERTIES, resolvePageArguments } from './page-arguments';
import { previewText } from './run-tool';
import type { ToolContext, ToolDefinition } from './tool';

/** Longest value a preview line shows in full; longer ones are cut and fingerprinted. */
export const PREVIEW_VALUE_CHARS = 200;

/**
 * `pages_update`: changes a page text's title, body, SEO title or SEO description in the
 * run's workspace. It writes, so every call waits for approval; its preview has one line per
 * changed field, `field: old -> new`.
 */
export const pagesUpdateTool: ToolDefinition = {
  name: 'pages_update',
  description:
    "Change a page's title, body, SEO title and/or SEO description in one language. Needs a person's approval.",
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...PAGE_LOCATOR_PROPERTIES,
      title: { type: 'string', minLength: 1, maxLength: PAGE_TEXT_LIMITS.title },
      body: { type: 'string', maxLength: PAGE_TEXT_LIMITS.body },
      seoTitle: { type: 'string', maxLength: PAGE_TEXT_LIMITS.seoTitle },
      seoDescription: { type: 'string', maxLength: PAGE_TEXT_LIMITS.seoDescription },
    },
    required: ['pageId', 'languageId'],
    anyOf: PAGE_FIELDS.map((f) => ({ required: [f] })),
  },
  writes: true,
  // why: the page write and the run's `applied` mark commit in one transaction (OwnerContentPort).
  effect: 'transactional',
  resolveArguments: (args, ctx) => resolvePageArguments(args, ctx.subject),
  verifiesPreview: true,
  async preview(args, ctx) {
    const change = toChange(args, ctx);
    return previewOf(await ctx.content.previewUpdate(ctx.owner, change), change);
  },
  async execute(args, ctx, _input, approved) {
    const change = toChange(args, ctx);
    // why: what the decider approved is checked against the text the write starts from (read
    // under its lock, or with the write guarded on it), so a change to the page between that
    // check and the write cannot slip through.
    const holds =
      approved &&
      ((current: PortResult<PageFields>) => sameLines(previewText(previewOf(current, change)), approved));
    const result = await ctx.content.applyUpdate(ctx.owner, change, holds);
    if (!result.ok) return { ok: false, error: result.error };
    return {
      ok: true,
      output: { updated: true, fields: Object.keys(change.fields) },
      written: result.value,
    };
  },
};

function previewOf(current: PortResult<PageFields>, change: PageChange): PortResult<string[]> {
  return current.ok ? { ok: true, value: previewLines(current.value, change) } : current;
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function toChange(args: ToolArguments, ctx: ToolContext): PageChange {
  const fields: Partial<Record<PageField, string>> = {};
  for (const field of PAGE_FIELDS) {
    const value = args[field];
    if (typeof value === 'string') fields[field] = value;
  }
  return {
    pageId: args.pageId as number,
    languageId: args.languageId as number,
    workspaceId: ctx.workspaceId,
    fields,
  };
}

/** One line per field whose value changes (`field: old -> new`), or "no change". */
export function previewLines(current: PageFields, change: PageChange): string[] {
  const lines: string[] = [];
  for (const field of PAGE_FIELDS) {
    const next = change.fields[field];
    if (next === undefined || next === (current[field] ?? '')) continue;
    lines.push(`${field}: ${showValue(current[field])} -> ${showValue(next)}`);
  }
  return lines.length > 0 ? lines : ['no change'];
}

/**
 * A value on one line: quoted, cut at 200 characters with its length in characters (as the
 * limits count them: an emoji is one, and is never cut in two) and a fingerprint.
 */
function showValue(value: string | null): string {
  if (value === null || value === '') return '(empty)';
  // why: no more UTF-16 units than the cut means no more characters either, without a scan
  if (value.length <= PREVIEW_VALUE_CHARS) return JSON.stringify(value);
  const chars = characterCount(value);
  if (chars <= PREVIEW_VALUE_CHARS) return JSON.stringify(value);
  // why: a cut value still changes the line when any part of it changes, so the resume check
  // (recomputed preview differs -> re-suspend) also sees edits past the cut.
  const fingerprint = createHash('sha256').update(value).digest('hex').slice(0, 12);
  const head = JSON.stringify(firstCharacters(value, PREVIEW_VALUE_CHARS));
  return `${head}… (${chars} chars, #${fingerprint})`;
}
