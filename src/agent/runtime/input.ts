import { DecisionMismatchError, InvalidInputError } from './errors';
import { checkOnce } from './json-schema';
import type { PendingTurn, SuspendedState } from './types';

/**
 * Checks submitted input values against the pending input schema (structure and enums) and
 * returns them. Pure: the decision layer calls it BEFORE claiming (check 9 of docs/decisions.md),
 * `resumeAgent` again. Throws `InvalidInputError` with the failing JSON paths, or
 * `DecisionMismatchError` when nothing waits for input.
 */
export function validateInput(
  source: SuspendedState | PendingTurn,
  values: unknown,
): Record<string, unknown> {
  const pending = 'transcript' in source ? source.pending : source;
  const request = pending?.kind === 'INPUT' ? pending.inputRequest : undefined;
  if (!request) throw new DecisionMismatchError('The run does not wait for input');
  if (values === null || typeof values !== 'object' || Array.isArray(values)) {
    throw new InvalidInputError([{ path: '', message: 'must be an object' }]);
  }
  const check = checkOnce(request.schema, values);
  if (!check.ok) throw new InvalidInputError(check.problems);
  return values as Record<string, unknown>;
}
