import type { BudgetScope } from '../../../agent';
import type { TokenCaps } from '../../configurations';

/**
 * Which cap a run has reached before its next model call, or null. A cap is reached when the
 * tokens used so far are at or above it: any further call would go past it. `dayTokens` (the
 * owner's tokens of the day, this run included) is asked only when a daily cap is set.
 */
export async function reachedCap(
  caps: TokenCaps,
  runTokens: number,
  dayTokens: () => Promise<number>,
): Promise<BudgetScope | null> {
  if (caps.maxTokensPerRun !== null && runTokens >= caps.maxTokensPerRun) return 'RUN';
  if (caps.maxTokensPerUserPerDay === null) return null;
  return (await dayTokens()) >= caps.maxTokensPerUserPerDay ? 'DAY' : null;
}

/** The start of the UTC day `at` falls in: the daily cap's boundary. */
export function utcDayStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}
