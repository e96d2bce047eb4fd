import { buildSchema } from 'graphql';
import { prepareWsOperation, type OperationLimits } from './ws-operations';

describe('prepareWsOperation', () => {
  const schema = buildSchema(
    'type Query { a(s: String): String } type Subscription { tick(s: String): String }',
  );
  const limits: OperationLimits = { maxTokens: 1000, rules: [], maxCost: 1000 };
  const query = 'subscription($s: String) { tick(s: $s) }';

  it('shares one parsed document among subscribers of the same text, and still checks each one’s variables', () => {
    const first = prepareWsOperation(schema, { query, variables: { s: 'x' } }, limits);
    const second = prepareWsOperation(schema, { query, variables: { s: 'y' } }, limits);
    expect(Array.isArray(first) || Array.isArray(second)).toBe(false);
    expect((second as { document: unknown }).document).toBe((first as { document: unknown }).document);
    const nul = prepareWsOperation(schema, { query, variables: { s: 'a\u0000b' } }, limits);
    expect(Array.isArray(nul)).toBe(true);
  });

  it('refuses an invalid text every time (nothing cached)', () => {
    for (let i = 0; i < 2; i++) {
      const errors = prepareWsOperation(schema, { query: 'subscription { nope }' }, limits);
      expect(Array.isArray(errors) && errors[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });
});
