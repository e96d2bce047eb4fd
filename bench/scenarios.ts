import type { Scenario } from './scenario';
import { P0 } from './scenarios/p0-request-overhead';
import { P1 } from './scenarios/p1-decision-latency';
import { P2 } from './scenarios/p2-double-click';
import { P3 } from './scenarios/p3-fan-out';
import { P4 } from './scenarios/p4-durable-throughput';
import { P5 } from './scenarios/p5-step-overhead';
import { P6 } from './scenarios/p6-recovery';
import { P7 } from './scenarios/p7-volume';
import { P8 } from './scenarios/p8-answer-stream';
import { M1 } from './scenarios/m1-memory';
import { W1 } from './scenarios/w1-webhooks';

/** Every scenario of docs/benchmarks.md that exists so far, in order. */
export const SCENARIOS: Scenario[] = [P0, P1, P2, P3, P4, P5, P6, P7, P8, W1, M1];
