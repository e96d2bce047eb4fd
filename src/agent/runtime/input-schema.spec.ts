import { inputSchemaProblem, INPUT_SCHEMA_MAX_DEPTH } from './input-schema';
import { checkOnce, schemaProblem } from './json-schema';

describe('inputSchemaProblem', () => {
  it('accepts a form of the allowed keywords', () => {
    expect(
      inputSchemaProblem({
        type: 'object',
        properties: {
          tone: { type: 'string', enum: ['formal', 'casual'], description: 'd' },
          tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 3 },
        },
        required: ['tone'],
        additionalProperties: false,
      }),
    ).toBeNull();
  });

  it.each([
    [{ type: 'object', $ref: '#/definitions/x' }, /the schema uses "\$ref"/],
    [{ type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } }, /\/properties\/a uses "anyOf"/],
    [
      { type: 'object', properties: { a: { type: 'array', items: { not: {} } } } },
      /\/properties\/a\/items uses "not"/,
    ],
    [{ type: 'object', additionalProperties: { propertyNames: { pattern: 'x' } } }, /"propertyNames"/],
    [{ type: 'object', properties: { 'a/b': { if: {} } } }, /\/properties\/a~1b uses "if"/],
    [
      { type: 'object', properties: { a: { type: 'string', pattern: 'a'.repeat(1001) } } },
      /longer than 1000/,
    ],
  ])('refuses %j', (schema, why) => {
    expect(inputSchemaProblem(schema)).toMatch(why);
  });

  it('refuses nesting past the limit', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i <= INPUT_SCHEMA_MAX_DEPTH; i++) schema = { type: 'object', properties: { a: schema } };
    expect(inputSchemaProblem(schema)).toMatch(/nests deeper/);
  });
});

describe('patterns in data schemas (RE2)', () => {
  it('matches a catastrophic-backtracking pattern in linear time', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } };
    const started = Date.now();
    expect(checkOnce(schema, { a: `${'a'.repeat(100_000)}!` }).ok).toBe(false);
    expect(checkOnce(schema, { a: 'aaaa' }).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('does not compile what RE2 cannot run (lookarounds, backreferences)', () => {
    expect(
      schemaProblem({ type: 'object', properties: { a: { type: 'string', pattern: '(?=a)' } } }),
    ).not.toBeNull();
    expect(
      schemaProblem({ type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } }),
    ).not.toBeNull();
  });
});
