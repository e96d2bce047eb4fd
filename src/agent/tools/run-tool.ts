import type { InputProblem } from '../runtime/errors';
import type { ToolArguments, ToolCall } from '../runtime/types';
import type { ToolSet } from './registry';
import type { PortResult } from './content-port';
import { type ToolContext, type ToolResult, toolError } from './tool';

/** Options for one execution. */
export interface RunToolOptions {
  /**
   * Set only for the input call of an answered input pause: the validated values, which are
   * laid over the call's arguments for the keys the input schema declares.
   */
  readonly inputValues?: Readonly<Record<string, unknown>>;
  /** The preview lines the decider approved, for a tool that `verifiesPreview`. */
  readonly approvedPreview?: readonly string[];
}

/**
 * Executes one call as the run's owner: an unknown tool, invalid arguments, an input tool that
 * was not answered in this turn, or a refusal of the content port all become error results.
 * Only faults (exceptions of a port) propagate.
 */
export async function runTool(
  tools: ToolSet,
  call: ToolCall,
  ctx: ToolContext,
  options: RunToolOptions = {},
): Promise<ToolResult> {
  const prepared = tools.prepare(call.name, call.arguments, ctx);
  if (!prepared) return toolError(`Unknown tool "${call.name}"; nothing was done.`);
  if (!prepared.check.ok) return toolError(invalidArguments(prepared.check.problems));
  const input = prepared.tool.input;
  if (!input) return prepared.tool.execute(prepared.args, ctx, undefined, options.approvedPreview);
  if (!options.inputValues) {
    return toolError(
      'This question was not put to the user in this turn; ask again if you still need the answer.',
    );
  }
  const values = declaredValues(input.schema(prepared.args), options.inputValues);
  return prepared.tool.execute({ ...prepared.args, ...values }, ctx, values);
}

/**
 * The preview lines of a call that needs approval: the tool's own preview, or a line saying why
 * there is none (unknown tool, invalid arguments, a refusal such as no edit permission).
 */
export async function previewCall(tools: ToolSet, call: ToolCall, ctx: ToolContext): Promise<string[]> {
  const prepared = tools.prepare(call.name, call.arguments, ctx);
  if (!prepared) return [`Unknown tool "${call.name}": it cannot run; approving only tells the model so.`];
  if (!prepared.check.ok) return [`Invalid arguments: ${problemsText(prepared.check.problems)}`];
  if (!prepared.tool.preview) return [];
  return previewText(await prepared.tool.preview(prepared.args, ctx));
}

/** A tool's preview as the decider is shown it: its lines, or why it cannot be carried out. */
export function previewText(preview: PortResult<string[]>): string[] {
  return preview.ok ? preview.value : [`Cannot be carried out: ${preview.error}`];
}

/** The arguments with the tool's defaults resolved (as they are shown, hashed and executed). */
export function resolvedArguments(
  tools: ToolSet,
  call: ToolCall,
  ctx: Pick<ToolContext, 'subject'>,
): ToolArguments {
  return tools.prepare(call.name, call.arguments, ctx)?.args ?? call.arguments;
}

/** The text of a tool message (what the model reads). */
export function resultContent(result: ToolResult): string {
  return JSON.stringify(result.ok ? (result.output ?? null) : { error: result.error });
}

/**
 * The submitted values for the keys the input schema declares (`properties`), and no others:
 * what is laid over the input call's arguments.
 */
export function declaredValues(
  schema: Readonly<Record<string, unknown>>,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const properties = schema.properties;
  const declared = properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
  const out: Record<string, unknown> = {};
  for (const key of declared) {
    if (key === '__proto__') continue;
    if (Object.prototype.hasOwnProperty.call(values, key) && values[key] !== undefined)
      out[key] = values[key];
  }
  return out;
}

function invalidArguments(problems: readonly InputProblem[]): string {
  return `Invalid arguments: ${problemsText(problems)}`;
}

function problemsText(problems: readonly InputProblem[]): string {
  return problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ');
}
