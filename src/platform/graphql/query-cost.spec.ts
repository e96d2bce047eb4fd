import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as webOperations from '../../../web/src/api/operations';
import { operationCostError } from './query-cost';

const schema = buildSchema(readFileSync(join(__dirname, '../../../schema.gql'), 'utf8'));
const PROBE = `query ($a: Int, $b: Int) {
  runs(first: $a) { nodes { steps(first: $b) { nodes { payload } } } }
}`;
const refusal = (query: string, variables?: Record<string, unknown>) =>
  operationCostError(schema, parse(query), variables, undefined, 5000);

describe('operationCostError', () => {
  it('refuses nested pages whose size comes from variables', () => {
    const error = refusal(PROBE, { a: 200, b: 500 });
    expect(error?.extensions.code).toBe('BAD_USER_INPUT');
    expect(error?.message).toMatch(/Query cost limit of 5000 exceeded, found \d+/);
  });

  it('refuses the same nesting with the schema defaults (no first at all)', () => {
    expect(refusal('{ runs { nodes { steps { nodes { payload } } } } }')?.message).toMatch(/found 10101\b/);
    expect(refusal(PROBE, {})).not.toBeNull();
  });

  it('cuts a page to what the server serves, and counts a negative one as empty', () => {
    expect(refusal('{ runs(first: 1000000000) { totalCount } }')).toBeNull();
    expect(refusal(PROBE, { a: -5, b: 500 })).toBeNull();
    expect(refusal(PROBE, { a: 3, b: 500 })).toBeNull();
  });

  it('leaves variables that do not coerce to execution', () => {
    expect(refusal(PROBE, { a: 'many' })).toBeNull();
  });

  it('lets every operation of the web client through, and GraphiQL’s introspection', () => {
    const documents = Object.values(webOperations).filter((v) => typeof v === 'string') as string[];
    expect(documents.length).toBeGreaterThan(10);
    for (const document of [...documents, getIntrospectionQuery()]) {
      expect({ document, error: refusal(document)?.message }).toEqual({ document, error: undefined });
    }
  });
});
