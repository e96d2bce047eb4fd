import type { ValidateFunction } from 'ajv';
import { compileStatic, runValidator, type SchemaCheck } from '../runtime/json-schema';
import type { ToolArguments, ToolSpec } from '../runtime/types';
import type { ToolContext, ToolDefinition } from './tool';

/** A tool definition the registry refused. */
export class ToolRegistrationError extends Error {
  readonly code = 'TOOL_REGISTRATION' as const;

  constructor(message: string) {
    super(message);
    this.name = 'ToolRegistrationError';
  }
}

/** A registered tool with its compiled argument validator. */
export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly validate: ValidateFunction;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The tools a run may use (a registry narrowed to the configuration's enabled tools). */
export class ToolSet {
  constructor(private readonly tools: ReadonlyMap<string, RegisteredTool>) {}

  /** The tool, or undefined for a name this run does not know (treated as a write). */
  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name)?.definition;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The specs the provider is told about. */
  specs(): ToolSpec[] {
    return [...this.tools.values()].map(({ definition: d }) => ({
      name: d.name,
      description: d.description,
      parameters: d.parameters,
    }));
  }

  /**
   * The arguments with the tool's defaults resolved, and whether they are valid (JSON Schema,
   * then the tool's own `refine`).
   */
  prepare(name: string, args: ToolArguments, ctx: Pick<ToolContext, 'subject'>): PreparedCall | undefined {
    const tool = this.tools.get(name);
    if (!tool) return undefined;
    const resolved = tool.definition.resolveArguments?.(args, ctx) ?? args;
    return { tool: tool.definition, args: resolved, check: checkTool(tool, resolved) };
  }
}

/** A call's tool, resolved arguments and their check. */
export interface PreparedCall {
  readonly tool: ToolDefinition;
  readonly args: ToolArguments;
  readonly check: SchemaCheck;
}

function checkTool(tool: RegisteredTool, args: ToolArguments): SchemaCheck {
  const check = runValidator(tool.validate, args);
  if (!check.ok) return check;
  const problem = tool.definition.refine?.(args) ?? null;
  return problem === null ? check : { ok: false, problems: [{ path: '', message: problem }] };
}

/**
 * The catalogue of tools. Registration refuses a tool that both writes and takes input, a
 * write without a preview or without a declared effect, an effect on a tool that does not
 * write, a duplicate or malformed name, and an argument schema that does not compile.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  register(definition: ToolDefinition): this {
    const refusal = registrationProblem(definition, this.tools);
    if (refusal) throw new ToolRegistrationError(`Tool "${definition.name}": ${refusal}`);
    let validate: ValidateFunction;
    try {
      validate = compileStatic(definition.parameters);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ToolRegistrationError(
        `Tool "${definition.name}": the argument schema does not compile: ${why}`,
      );
    }
    this.tools.set(definition.name, { definition, validate });
    return this;
  }

  /** All registered tool names. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools a run may use: `enabled` names (unknown names ignored), or all when undefined. */
  select(enabled?: readonly string[]): ToolSet {
    if (enabled === undefined) return new ToolSet(new Map(this.tools));
    const picked = new Map<string, RegisteredTool>();
    for (const name of enabled) {
      const tool = this.tools.get(name);
      if (tool) picked.set(name, tool);
    }
    return new ToolSet(picked);
  }
}

function registrationProblem(d: ToolDefinition, known: ReadonlyMap<string, unknown>): string | null {
  if (!TOOL_NAME.test(d.name)) return 'the name must be 1-64 letters, digits, "_" or "-"';
  if (known.has(d.name)) return 'a tool with this name is already registered';
  if (d.writes && d.input) return 'a tool cannot both write (need approval) and ask for input (inputSchema)';
  if (d.writes && !d.preview) return 'a tool that writes needs a preview';
  // why: the reaper's rule depends on it; an undeclared effect would have to be guessed.
  if (d.writes && d.effect !== 'transactional' && d.effect !== 'external')
    return 'a tool that writes must declare its effect: "transactional" or "external"';
  if (!d.writes && d.effect !== undefined) return 'only a tool that writes declares an effect';
  return null;
}
