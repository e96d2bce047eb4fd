import { checkOnce, schemaProblem } from './json-schema';

describe('checkOnce', () => {
  it('checks structure and enums and forgets the schema (an $id can come back)', () => {
    const schema = { $id: 'answer', type: 'object', properties: { n: { enum: [1, 2] } }, required: ['n'] };
    expect(checkOnce(schema, { n: 1 })).toEqual({ ok: true });
    expect(checkOnce({ ...schema }, { n: 3 })).toEqual({
      ok: false,
      problems: [{ path: '/n', message: 'must be equal to one of the allowed values: 1, 2' }],
    });
  });

  it('tolerates a $schema ajv does not carry and unknown formats', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { mail: { type: 'string', format: 'email' } },
    };
    expect(checkOnce(schema, { mail: 'x' })).toEqual({ ok: true });
  });

  it('reports a schema that does not compile at the root', () => {
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'nope' } } })).toMatch(
      /schema is invalid/,
    );
    expect(schemaProblem({ $ref: 'http://example.com/x' })).toMatch(/can't resolve reference/);
    const check = checkOnce({ $ref: 'http://example.com/x' }, {});
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problems[0]?.path).toBe('');
    expect(schemaProblem({ type: 'object' })).toBeNull();
  });
});
