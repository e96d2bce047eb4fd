import { GraphQLISODateTime } from '@nestjs/graphql';
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
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
 */
export const GraphQLJSON = new GraphQLScalarType({
  ...PlainJSON.toConfig(),
  parseValue: (value) => shallow(PlainJSON.parseValue(value)),
  parseLiteral: (ast, variables) => shallow(PlainJSON.parseLiteral(ast, variables)),
});

function dateOf(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) {
    throw new GraphQLError('DateTime must be a date-time string, such as 2019-12-03T09:54:33Z', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return date;
}

/**
 * Nest's ISO DateTime scalar (same name, description and output), refusing input that is not a
 * date-time string. why: Nest's own turns a literal that is not a string (`expiresAt: 1`) into
 * null, which an optional argument reads as "not given" (a token without expiry), and a
 * variable of any type into `new Date(value)`. Mapped to `Date` in graphql.setup.ts.
 */
export const StrictDateTime = new GraphQLScalarType({
  ...GraphQLISODateTime.toConfig(),
  parseValue: dateOf,
  parseLiteral: (ast) => dateOf(ast.kind === Kind.STRING ? ast.value : undefined),
});
