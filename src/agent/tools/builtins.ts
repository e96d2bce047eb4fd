import { askUserTool } from './ask-user';
import { pagesReadTool } from './pages-read';
import { pagesSearchTool } from './pages-search';
import { pagesUpdateTool } from './pages-update';
import { ToolRegistry } from './registry';
import type { ToolDefinition } from './tool';

/** The built-in tools: pages_read, pages_search, pages_update, ask_user. */
export const BUILTIN_TOOLS: readonly ToolDefinition[] = [
  pagesReadTool,
  pagesSearchTool,
  pagesUpdateTool,
  askUserTool,
];

/** A registry holding the built-in tools. */
export function createDefaultToolRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  return registry;
}
