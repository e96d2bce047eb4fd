import type { JsonSchema } from './json-schema';

/**
 * The JSON Schema keywords a model may use in an input schema (`ask_user`). A schema comes from
 * model output, which a prompt-injected page can steer, so only keywords that describe a form
 * are accepted: no references (`$ref`, `$id`), no combinators or conditionals (`allOf`, `if`,
 * ...), no `patternProperties`/`propertyNames` (regular expressions on keys), no
 * `dependencies`. Values of `enum`, `const`, `default` and `examples` are data, not schemas.
 */
export const INPUT_SCHEMA_KEYWORDS: readonly string[] = [
  'type',
  'properties',
  'required',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'title',
  'description',
  'default',
  'examples',
  'additionalProperties',
  '$schema',
];

/** How deep schemas may nest (an answer form, not a document model). */
export const INPUT_SCHEMA_MAX_DEPTH = 8;
/** The longest `pattern` accepted (RE2 matches in linear time, but compiling is not free). */
export const INPUT_PATTERN_MAX = 1000;

const ALLOWED = new Set(INPUT_SCHEMA_KEYWORDS);

/**
 * Null when `schema` uses only the allowed keywords within the limits, else the first problem
 * with the JSON Pointer of the offending schema, phrased for the model that wrote it.
 */
export function inputSchemaProblem(schema: unknown, path = '', depth = 0): string | null {
  if (typeof schema === 'boolean') return null;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return `${at(path)} must be a schema object`;
  }
  if (depth > INPUT_SCHEMA_MAX_DEPTH) return `${at(path)} nests deeper than ${INPUT_SCHEMA_MAX_DEPTH} levels`;
  const node = schema as JsonSchema;
  for (const keyword of Object.keys(node)) {
    if (!ALLOWED.has(keyword)) {
      return `${at(path)} uses "${keyword}", which input schemas do not allow (allowed: ${INPUT_SCHEMA_KEYWORDS.join(', ')})`;
    }
  }
  if (node.pattern !== undefined) {
    if (typeof node.pattern !== 'string') return `${at(path)}: "pattern" must be a string`;
    if (node.pattern.length > INPUT_PATTERN_MAX) {
      return `${at(path)}: "pattern" is longer than ${INPUT_PATTERN_MAX} characters`;
    }
  }
  return childProblem(node, path, depth);
}

function childProblem(node: JsonSchema, path: string, depth: number): string | null {
  const { properties, items, additionalProperties } = node;
  if (properties !== undefined) {
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
      return `${at(path)}: "properties" must be an object`;
    }
    for (const [name, child] of Object.entries(properties as JsonSchema)) {
      const problem = inputSchemaProblem(child, `${path}/properties/${escape(name)}`, depth + 1);
      if (problem) return problem;
    }
  }
  // why: the array form of `items` (tuples) is not a form field; only one schema for all items.
  if (items !== undefined) {
    const problem = inputSchemaProblem(items, `${path}/items`, depth + 1);
    if (problem) return problem;
  }
  if (additionalProperties !== undefined) {
    return inputSchemaProblem(additionalProperties, `${path}/additionalProperties`, depth + 1);
  }
  return null;
}

function at(path: string): string {
  return path === '' ? 'the schema' : `the schema at ${path}`;
}

function escape(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
