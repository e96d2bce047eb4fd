import type { Scenario } from './scenario';

/** Every scenario of design/60-performance.md that exists so far, in order. */
export const SCENARIOS: Scenario[] = [];
