import { badInput } from '../../../common/refusal';

/** The ceiling when the application configuration names none (AGENT_MAX_ITERATIONS_CEILING). */
export const DEFAULT_MAX_ITERATIONS_CEILING = 20;
/** A configuration's iterations when its input names none. */
export const DEFAULT_MAX_ITERATIONS = 5;

/**
 * Clamps a requested iteration limit to the ceiling: above it gives the ceiling (stored and
 * used clamped, not refused, so that a script written for a larger ceiling still loads).
 * Decision: a value below 1, or not an integer, is refused with BAD_USER_INPUT rather than
 * clamped up, because a run of zero rounds is never what was meant and silently turning it
 * into 1 would hide the mistake.
 *
 * @throws Refusal BAD_USER_INPUT when `n` is not an integer of at least 1.
 */
export function clampMaxIterations(n: number, ceiling: number = DEFAULT_MAX_ITERATIONS_CEILING): number {
  if (!Number.isInteger(n) || n < 1) {
    throw badInput('maxIterations must be an integer of at least 1', { field: 'maxIterations' });
  }
  const top = Number.isInteger(ceiling) && ceiling >= 1 ? ceiling : DEFAULT_MAX_ITERATIONS_CEILING;
  return Math.min(n, top);
}
