import { PAGE_LOCATOR_PROPERTIES, resolvePageArguments } from './page-arguments';
import type { ToolDefinition } from './tool';

/** `pages_read`: a page's title, slug, body and SEO fields, where the owner may show it. */
export const pagesReadTool: ToolDefinition = {
  name: 'pages_read',
  description: "Read a page's title, slug, body, SEO title and SEO description in one language.",
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: PAGE_LOCATOR_PROPERTIES,
    required: ['pageId', 'languageId'],
  },
  writes: false,
  resolveArguments: (args, ctx) => resolvePageArguments(args, ctx.subject),
  async execute(args, ctx) {
    const result = await ctx.content.readPage(ctx.owner, {
      pageId: args.pageId as number,
      languageId: args.languageId as number,
      workspaceId: ctx.workspaceId,
    });
    return result.ok ? { ok: true, output: result.value } : { ok: false, error: result.error };
  },
};
