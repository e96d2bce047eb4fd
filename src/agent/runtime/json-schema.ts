import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import type { RE2JS } from 're2js';
import type { InputProblem } from './errors';

/** A JSON Schema as plain data. */
export type JsonSchema = Record<string, unknown>;

/** The result of checking a value against a schema. */
export type SchemaCheck = { readonly ok: true } | { readonly ok: false; readonly problems: InputProblem[] };

// why: non-strict so annotation keywords and unknown formats a model writes do not make a
// schema "invalid"; formats are not validated (no ajv-formats), structure and enums are.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false });

// why: schemas that arrive as data (a model's `ask_user` schema, steerable by a prompt-injected
// page) compile their `pattern`s with RE2's algorithm (re2js: pure JavaScript, so nothing to
// build on install), whose matching is linear in the input: a pattern such as `^(a+)+$` cannot
// stall the process on a crafted answer. RE2 refuses backreferences and lookarounds, so such a
// schema does not compile and is refused.
// re2js (a quarter megabyte) loads with the first such pattern, not with every process (bench M1).
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const re2 = (require('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
    const compiled = re2.compile(pattern);
    return { test: (text: string) => compiled.matcher(text).find() };
  },
  { code: 'linearRegExp' },
);
const dataAjv = new Ajv({
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
  code: { regExp: linearRegExp },
});

/**
 * Compiles a schema the code owns (a tool's argument schema) once; throws when it does not
 * compile (a programming error caught at registration).
 */
export function compileStatic(schema: JsonSchema): ValidateFunction {
  return ajv.compile(withoutMetaSchema(schema));
}

/** Checks a value with a compiled validator. */
export function runValidator(validate: ValidateFunction, value: unknown): SchemaCheck {
  if (validate(value)) return { ok: true };
  return { ok: false, problems: toProblems(validate.errors ?? []) };
}

/**
 * Checks a value against a schema that arrives as data (a model's `ask_user` schema): compiled,
 * used and forgotten at once, so schemas from many runs do not pile up in ajv's cache.
 * A schema that does not compile is reported as a problem at the root.
 */
export function checkOnce(schema: JsonSchema, value: unknown): SchemaCheck {
  const outcome = withCompiled(schema, (validate) => runValidator(validate, value));
  if (outcome.ok) return outcome.value;
  return { ok: false, problems: [{ path: '', message: `schema does not compile: ${outcome.error}` }] };
}

/** Null when the schema compiles, else why not. */
export function schemaProblem(schema: JsonSchema): string | null {
  const outcome = withCompiled(schema, () => null);
  return outcome.ok ? null : outcome.error;
}

function withCompiled<T>(
  schema: JsonSchema,
  use: (validate: ValidateFunction) => T,
): { ok: true; value: T } | { ok: false; error: string } {
  const copy = withoutMetaSchema(schema);
  try {
    return { ok: true, value: use(dataAjv.compile(copy)) };
  } catch (error) {
    return { ok: false, error: messageOf(error) };
  } finally {
    // why: ajv caches by schema object, also after a failed compile; forget it in every case.
    dataAjv.removeSchema(copy);
  }
}

/** Ajv errors as JSON Pointer paths with messages (a missing property names its own path). */
export function toProblems(errors: readonly ErrorObject[]): InputProblem[] {
  return errors.map((e) => {
    const params = e.params as Record<string, unknown>;
    const child = params.missingProperty ?? params.additionalProperty;
    const path = typeof child === 'string' ? `${e.instancePath}/${child}` : e.instancePath;
    const allowed = Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(', ')}` : '';
    return { path, message: `${e.message ?? 'is invalid'}${allowed}` };
  });
}

function withoutMetaSchema(schema: JsonSchema): JsonSchema {
  // why: a copy, so ajv's cache key is ours to remove; `$schema` dropped so a draft ajv does not
  // carry (2020-12) does not fail a schema that is otherwise fine.
  const copy: JsonSchema = { ...schema };
  delete copy.$schema;
  return copy;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
