import { INPUT_SCHEMA_KEYWORDS, inputSchemaProblem } from '../runtime/input-schema';
import { schemaProblem, type JsonSchema } from '../runtime/json-schema';
import type { ToolDefinition } from './tool';

/** The name of the built-in input tool. */
export const ASK_USER = 'ask_user';

/**
 * `ask_user`: the input tool. Its `schema` argument is the JSON Schema (an object schema) of
 * the values the user submits; it may use only the keywords of `INPUT_SCHEMA_KEYWORDS` and must
 * compile (patterns with RE2). A schema that fails either check makes the call invalid: it is
 * classified as a read and answered with the reason, so the model sees why and may ask again,
 * and the run never waits on a schema it could not check safely. The run pauses
 * WAITING_FOR_INPUT; the submitted values (checked for structure and enums) are the call's result.
 */
export const askUserTool: ToolDefinition = {
  name: ASK_USER,
  description:
    'Ask the user a question and wait for the answer. `schema` is a JSON Schema of type object describing the answer fields (use enum for choices). ' +
    `Only these keywords are accepted: ${INPUT_SCHEMA_KEYWORDS.join(', ')}; patterns use RE2 syntax (no lookarounds or backreferences).`,
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: {
      question: { type: 'string', minLength: 1, maxLength: 2000 },
      schema: {
        type: 'object',
        required: ['type', 'properties'],
        properties: { type: { const: 'object' }, properties: { type: 'object' } },
      },
    },
    required: ['question', 'schema'],
  },
  writes: false,
  input: {
    schema: (args) => args.schema as JsonSchema,
    question: (args) => (typeof args.question === 'string' ? args.question : null),
  },
  refine: (args) => {
    const refused = inputSchemaProblem(args.schema);
    if (refused !== null) return `the schema is not accepted: ${refused}`;
    const problem = schemaProblem(args.schema as JsonSchema);
    return problem === null ? null : `the schema does not compile: ${problem}`;
  },
  execute: (_args, _ctx, input) => Promise.resolve({ ok: true, output: input ?? {} }),
};
