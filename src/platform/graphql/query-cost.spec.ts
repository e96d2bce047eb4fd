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

  it('answers a reused document by each call’s own page sizes and @include flags', () => {
    // why: the transports share one parsed document per operation text and a cost that
    // variables cannot change is kept by document; one that they can must not be.
    const pages = parse(PROBE);
    const cost = (document: typeof pages, variables: Record<string, unknown>) =>
      operationCostError(schema, document, variables, undefined, 5000);
    expect(cost(pages, { a: 3, b: 500 })).toBeNull();
    expect(cost(pages, { a: 200, b: 500 })?.extensions.code).toBe('BAD_USER_INPUT');
    const flagged = parse(`query ($big: Boolean!) {
      runs(first: 200) { nodes { steps(first: 500) @include(if: $big) { nodes { payload } } } }
    }`);
    expect(cost(flagged, { big: false })).toBeNull();
    expect(cost(flagged, { big: true })?.extensions.code).toBe('BAD_USER_INPUT');
    const fixed = parse(
      'query ($id: ID!) { runs(first: 200) { nodes { steps(first: 500) { nodes { id } } } } }',
    );
    expect(cost(fixed, { id: '1' })?.extensions.code).toBe('BAD_USER_INPUT');
    expect(cost(fixed, { id: '2' })?.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('keeps the cost of each operation of a document apart', () => {
    const both = parse(`
      query Small($id: ID!) { run(id: $id) { id } }
      query Large($id: ID!) { runs(first: 200) { nodes { steps(first: 500) { nodes { id } } } } }
    `);
    const cost = (operationName: string) =>
      operationCostError(schema, both, { id: '1' }, operationName, 5000);
    for (let i = 0; i < 2; i++) {
      expect(cost('Small')).toBeNull();
      expect(cost('Large')?.extensions.code).toBe('BAD_USER_INPUT');
    }
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
