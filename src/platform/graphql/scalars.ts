import { GraphQLError, GraphQLScalarType } from 'graphql';
import { GraphQLJSON as PlainJSON } from 'graphql-type-json';

/** The deepest nesting a JSON input value may have (objects and lists, the value itself is 1). */
export const MAX_JSON_INPUT_DEPTH = 32;

/** True when `value` nests objects or lists deeper than `max`; stops early, never recurses. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(next)) stack.push([child, depth + 1]);
  }
  return false;
}

function shallow(value: unknown): unknown {
  if (nestsDeeperThan(value, MAX_JSON_INPUT_DEPTH)) {
    // why: a deeper value would reach recursive code further on (class-transformer, JSON
    // schema checks, JSON.stringify) and could exhaust the stack: a 500 instead of a refusal.
    throw new GraphQLError(`JSON input nests deeper than ${MAX_JSON_INPUT_DEPTH} levels`, {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return value;
}

/**
 * The JSON scalar: use as `@Field(() => GraphQLJSON)`. Output as graphql-type-json's; input
 * (variables and literals) refused with BAD_USER_INPUT when nested deeper than
 * `MAX_JSON_INPUT_DEPTH`. Sizes are checked where the value is used (64 KB, docs/security.md).
 * DateTime is Nest's ISO date scalar.
 */
export const GraphQLJSON = new GraphQLScalarType({
  ...PlainJSON.toConfig(),
  parseValue: (value) => shallow(PlainJSON.parseValue(value)),
  parseLiteral: (ast, variables) => shallow(PlainJSON.parseLiteral(ast, variables)),
});
