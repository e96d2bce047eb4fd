import type { JsonSchema } from '../runtime/json-schema';
import type { RunSubject, ToolArguments } from '../runtime/types';
import type { ContentPort, PortResult, RunOwner, WrittenRecord } from './content-port';

/** What a tool runs with: the run's owner, workspace and subject, and the content port. */
export interface ToolContext {
  readonly runId: string;
  readonly owner: RunOwner;
  readonly workspaceId: number;
  readonly subject: RunSubject;
  readonly content: ContentPort;
}

/** A tool's result: an output the model reads, or an error the model reads. */
export type ToolResult =
  | { readonly ok: true; readonly output: unknown; readonly written?: WrittenRecord }
  | { readonly ok: false; readonly error: string };

/** How an input tool asks: the question and the JSON Schema of the values, from its arguments. */
export interface InputSpec {
  schema(args: ToolArguments): JsonSchema;
  question(args: ToolArguments): string | null;
}

/**
 * Where a writing tool's effect commits, which decides what happens to a run cut off while the
 * call is in flight (the reaper, docs/run-lifecycle.md):
 *
 * - `transactional`: the effect commits through the content port's fenced write, in one
 *   transaction with the call's completion (`AgentPorts.atomically`), or with the run's
 *   pending-effect `applied` mark where the ports offer no such unit. Not committed means the
 *   effect never happened, so the run may be requeued and carry the call out once.
 * - `external`: anything else (another system, a call that cannot join the run's transaction).
 *   Whether it happened cannot be told, so a cut-off run fails NOT_RETRYABLE, never repeating it.
 */
export type ToolEffect = 'transactional' | 'external';

/**
 * A tool the model may call. Arguments are checked against `parameters` (ajv) before
 * `preview` or `execute` runs; invalid arguments become an error result. A tool either
 * `writes` (its calls need approval; it must have `preview` and declare its `effect`) or has
 * `input` (its calls pause for input), never both.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (after `resolveArguments`). */
  readonly parameters: JsonSchema;
  readonly writes: boolean;
  /** Writes only (required there): where the effect commits; see ToolEffect. */
  readonly effect?: ToolEffect;
  readonly input?: InputSpec;
  /** Fills run defaults (the subject page and language) and normalises (numeric strings). */
  resolveArguments?(args: ToolArguments, ctx: Pick<ToolContext, 'subject'>): ToolArguments;
  /** Checks beyond the JSON Schema; null when fine, else why not. */
  refine?(args: ToolArguments): string | null;
  /** For writes: human-readable lines of what the call would change. */
  preview?(args: ToolArguments, ctx: ToolContext): Promise<PortResult<string[]>>;
  /**
   * Transactional writes: given `approved` (the preview lines the decider approved), `execute`
   * recomputes the preview from what it reads under its write's lock and throws
   * `PreviewChangedError`, writing nothing, where they differ. The runtime then skips its own
   * re-read of the preview before a lone approved write: the check moves into the write, where
   * nothing can change between it and the write.
   */
  readonly verifiesPreview?: boolean;
  /**
   * Runs the call. For an answered input call `args` already carry the submitted values (laid
   * over the arguments for the keys the input schema declares) and `input` holds those values.
   * `approved`: see `verifiesPreview`.
   */
  execute(
    args: ToolArguments,
    ctx: ToolContext,
    input?: Readonly<Record<string, unknown>>,
    approved?: readonly string[],
  ): Promise<ToolResult>;
}

/** Shorthand for an error result. */
export function toolError(error: string): ToolResult {
  return { ok: false, error };
}
