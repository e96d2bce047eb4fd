import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnumTypeDefinitionNode, Kind, parse } from 'graphql';
import { ERROR_CODES, isErrorCode, RETRYABLE_CODES } from './error-codes';

/** The committed, generated schema (kept in step with the code by `npm run schema:check`). */
const SCHEMA = join(__dirname, '..', '..', 'schema.gql');

function schemaErrorCodes(): string[] {
  const document = parse(readFileSync(SCHEMA, 'utf8'));
  const enumNode = document.definitions.find(
    (d): d is EnumTypeDefinitionNode => d.kind === Kind.ENUM_TYPE_DEFINITION && d.name.value === 'ErrorCode',
  );
  if (!enumNode) throw new Error(`no enum ErrorCode in ${SCHEMA}`);
  return (enumNode.values ?? []).map((v) => v.name.value);
}

describe('the error code registry', () => {
  it("is exactly the generated schema's ErrorCode enum", () => {
    expect([...ERROR_CODES].sort()).toEqual(schemaErrorCodes().sort());
  });

  it('has no duplicates', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('marks only registered codes as retryable, RATE_LIMITED among them', () => {
    for (const code of RETRYABLE_CODES) expect(isErrorCode(code)).toBe(true);
    expect(RETRYABLE_CODES.has('RATE_LIMITED')).toBe(true);
  });

  it('recognises codes and nothing else', () => {
    expect(isErrorCode('STALE_TURN')).toBe(true);
    expect(isErrorCode('BAD_REQUEST')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});
