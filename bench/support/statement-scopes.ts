import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { RunExecutor } from '../../src/modules/runs';
import { Authenticator } from '../../src/platform/auth/authenticator';
import type { Check } from './report';
import type { QueryCount, QueryCounter } from './query-counter';

/**
 * The statements one decision may send today, measured on this bench (bench/README.md,
 * "Statements per decision"): the bench fails when a decision sends more. They are today's
 * counts, not targets: lower them as the decision path gets cheaper, never raise them
 * without saying why in the README.
 */
export const STATEMENTS_PER_DECISION_BOUNDS = {
  /**
   * P1: one inline approveRun HTTP request, token check to receipt (continuation excluded):
   * 12 since the runs module claims with the checkpoint and reads nothing back, and 13 when the
   * token's once-a-minute use stamp falls in it.
   */
  inlineRequest: 13,
  /** P1: the continuation that request launched, up to the settle (demo-editor, one round): 22. */
  inlineContinuation: 22,
  /**
   * P4: one durable continuation, worker pickup to settle, averaged over a window: 31.2 since
   * claims return their rows (the SKIP LOCKED claim takes several runs per statement). One more
   * statement per run, or claims no longer batched, fails it.
   */
  durableContinuation: 32,
};
}
