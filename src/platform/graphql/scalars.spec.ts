import { GraphQLError, parseValue } from 'graphql';
import { GraphQLJSON, MAX_JSON_INPUT_DEPTH, nestsDeeperThan, StrictDateTime } from './scalars';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('the JSON scalar', () => {
  it('accepts input nested up to the limit', () => {
    const value = nested(MAX_JSON_INPUT_DEPTH);
    expect(GraphQLJSON.parseValue(value)).toBe(value);
    expect(GraphQLJSON.parseValue('plain')).toBe('plain');
    expect(GraphQLJSON.parseValue(null)).toBeNull();
  });

  it('refuses a variable nested deeper, with BAD_USER_INPUT', () => {
    expect(() => GraphQLJSON.parseValue(nested(MAX_JSON_INPUT_DEPTH + 1))).toThrow(GraphQLError);
    try {
      GraphQLJSON.parseValue(nested(100_000));
    } catch (e) {
      expect((e as GraphQLError).extensions.code).toBe('BAD_USER_INPUT');
    }
    expect.assertions(2);
  });

  it('refuses a literal nested deeper, and parses a shallow one', () => {
    const deep = `${'{ a: '.repeat(MAX_JSON_INPUT_DEPTH + 1)}1${' }'.repeat(MAX_JSON_INPUT_DEPTH + 1)}`;
    expect(() => GraphQLJSON.parseLiteral(parseValue(deep), {})).toThrow(/deeper than 32/);
    expect(GraphQLJSON.parseLiteral(parseValue('{ a: [1, "x", true, null] }'), {})).toEqual({
      a: [1, 'x', true, null],
    });
  });

  it('does not limit output', () => {
    const value = nested(MAX_JSON_INPUT_DEPTH * 4);
    expect(GraphQLJSON.serialize(value)).toBe(value);
  });

  it('counts depth without recursing', () => {
    expect(nestsDeeperThan(nested(300_000), 32)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });
});

describe('the DateTime scalar', () => {
  const literal = (source: string) => parseValue(source);

  it('parses date-time strings, as variables and as literals', () => {
    expect(StrictDateTime.parseValue('2030-01-02T03:04:05Z')).toEqual(new Date('2030-01-02T03:04:05Z'));
    expect(StrictDateTime.parseLiteral(literal('"2030-01-02T03:04:05Z"'), {})).toEqual(
      new Date('2030-01-02T03:04:05Z'),
    );
    expect(StrictDateTime.serialize(new Date('2030-01-02T03:04:05Z'))).toBe('2030-01-02T03:04:05.000Z');
  });

  it('refuses a literal that is not a string, where Nest read it as null', () => {
    for (const source of ['1', '4102444800000', '1.5e20', 'true', '{a: 1}', '[1]']) {
      expect(() => StrictDateTime.parseLiteral(literal(source), {})).toThrow(/date-time string/);
    }
  });

  it('refuses a variable that is not a date-time string, with BAD_USER_INPUT', () => {
    for (const value of [1, 1e17, true, {}, [], 'not a date', '']) {
      expect(() => StrictDateTime.parseValue(value)).toThrow(
        expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }),
      );
    }
  });

  it('keeps the name and description of the schema', () => {
    expect(StrictDateTime.name).toBe('DateTime');
    expect(StrictDateTime.description).toMatch(/^A date-time string at UTC/);
  });
});
