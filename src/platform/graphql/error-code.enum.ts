import { registerEnumType } from '@nestjs/graphql';
import { ERROR_CODES, ErrorCode } from '../../common/error-codes';

/**
 * The contract's `ErrorCode` enum as a GraphQL type, built from the one registry in
 * `src/common/error-codes.ts` (so the schema and `extensions.code` can never drift apart).
 * Fields that carry a code (`HandBack.code`) use `@Field(() => ErrorCodeEnum)`.
 */
export const ErrorCodeEnum = Object.freeze(
  Object.fromEntries(ERROR_CODES.map((code) => [code, code])) as { readonly [K in ErrorCode]: K },
);

registerEnumType(ErrorCodeEnum, {
  name: 'ErrorCode',
  description: 'The codes a refused operation answers with in `extensions.code`.',
});
