import type { ToolDefinition } from './tool';

/** `pages_search`: pages the owner may show that match a query. */
export const pagesSearchTool: ToolDefinition = {
  name: 'pages_search',
  description: 'Search the pages you may see by title, slug or text. Returns page ids, titles and slugs.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: { query: { type: 'string', minLength: 1, maxLength: 200 } },
    required: ['query'],
  },
  writes: false,
  async execute(args, ctx) {
    const result = await ctx.content.search(ctx.owner, args.query as string, ctx.workspaceId);
    return result.ok ? { ok: true, output: { hits: result.value } } : { ok: false, error: result.error };
  },
};
