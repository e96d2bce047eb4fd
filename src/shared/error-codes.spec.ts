import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnumTypeDefinitionNode, Kind, parse } from 'graphql';
import { ERROR_CODES, isErrorCode, RETRYABLE_CODES } from './error-codes';

/** The contract sits beside the project: <root>/../shared/api/contract.graphql. */
const CONTRACT = join(__dirname, '..', '..', '..', 'shared', 'api', 'contract.graphql');

function contractErrorCodes(): string[] {
  const document = parse(readFileSync(CONTRACT, 'utf8'));
  const enumNode = document.definitions.find(
    (d): d is EnumTypeDefinitionNode => d.kind === Kind.ENUM_TYPE_DEFINITION && d.name.value === 'ErrorCode',
  );
  if (!enumNode) throw new Error(`no enum ErrorCode in ${CONTRACT}`);
  return (enumNode.values ?? []).map((v) => v.name.value);
}

describe('the error code registry', () => {
  it("is exactly the contract's ErrorCode enum, in the same order", () => {
    expect([...ERROR_CODES]).toEqual(contractErrorCodes());
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
