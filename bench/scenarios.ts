import type { Scenario } from './scenario';
import { P5 } from './scenarios/p5-step-overhead';

/** Every scenario of design/60-performance.md that exists so far, in order. */
export const SCENARIOS: Scenario[] = [P5];
