import type { Provider } from '@nestjs/common';
import { createDefaultToolRegistry } from '../../../agent';

/**
 * The injection token of the tool registry runs execute with (one per application). why: a
 * provider rather than a module constant, so a deployment or a test can register a tool of its
 * own (for example one with an external effect) before runs use it.
 */
export const AGENT_TOOLS = Symbol('AGENT_TOOLS');

export const agentToolsProvider: Provider = {
  provide: AGENT_TOOLS,
  useFactory: createDefaultToolRegistry,
};
