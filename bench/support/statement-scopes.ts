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
   * 3 since the run is read with its configuration and the page it is about (its subject page,
   * or for P1's runs, which have none, the page their calls default to: the decider gate's
   * page) in one statement (4 while a run without a subject page had the gate read that page on
   * its own; 5 before the configuration came with the run; 8 before the claim, the decision's
   * step and the decision record were one statement with no transaction around it; 9 before the
   * claim carried the step; 10 before a decision read the configuration's settings without its
   * skills; 12 before the gate read its pages in one statement and the receipt took the decider
   * from the caller), and 4 when the token's once-a-minute use stamp falls in it.
   */
  inlineRequest: 4,
  /**
   * P1: the continuation that request launched, up to the settle (demo-editor, one round): 5
   * since the decision hands it the page the run is about (a run without a subject page looked
   * its default page up again); 6 since an approved write is read without a lock and completed in one statement, with no
   * transaction (ADR 0007; P1's write changes nothing after its first repetition, so its
   * completion goes alone); 8 since the decision's outcome rides in the settle's statement and a settle nobody listens to
   * needs no transaction around it (START, UPDATE decision and COMMIT went); 11 since the
   * settle's UPDATE stores the model's last step itself (`settleUnderLease`); 12
   * since a lone approved write checks the approved preview under its own lock instead of
   * re-reading it first; 13 since a run started over the API asks for no conversation when it
   * settles (`run.chat_turn`); 14 since a transactional write and its completion are one unit
   * of work; 15 while its write's mark recorded it, 20 before, 22 before that.
   */
  inlineContinuation: 5,
  /**
   * P4: one durable continuation, worker pickup to settle, averaged over a window: 3.7-3.8
   * since the pickup reads the texts its runs' writes start from in one statement for all of
   * them (`PagesService.readAhead`; each write read its own before); 4.7 in
   * quick windows since its write rides in its completion's statement (ADR 0007: the unlocked
   * read and that statement, where START, the locked read, the write, the completion and
   * COMMIT were five); 7.8 since its settle is one statement with the decision's outcome in it (no
   * transaction around it when nobody listens); 10.8 since the worker claims ahead (WORKER_PREFETCH=10: a pass fills the slots
   * and the buffer, so its statements are shared by more runs); 12.6-12.8 in quick windows,
   * 11.7-11.9 in full ones (larger pickups) before that, since its settle stores the
   * model's last step in its own UPDATE (13.4-13.7 before); 13.4-13.7
   * since its write checks the approved preview (14.4-14.7 before, when the preview was read
   * again first); 14.5-14.8 since its settle asks for no conversation, its pickup reads no
   * skills and records the decision steps of all the runs it took in one statement, and a
   * transactional write completes in its own transaction (16.5-16.6 before; 28.2 before a
   * pickup read what its checks need for all its runs at once).
   * The bound (7 before the read-ahead, 13 before the settle was one statement, 14 before
   * claiming ahead) leaves room for smaller pickups on a busier machine or with
   * BENCH_P4_PREFETCH=0; pickups no longer batched, or writes reading their texts one by one
   * again, fail it.
   */
  durableContinuation: 6,
} as const;

/**
 * Counts every statement sent while the app handles an HTTP request under the scope
 * `request` (the app's own server, wrapped in the bench process only).
 */
export function scopeHttpRequests(app: INestApplication, counter: QueryCounter): void {
  const server = app.getHttpServer() as Server;
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  for (const listener of listeners) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) =>
      counter.within('request', () => listener.call(server, req, res)),
    );
  }
}

/**
 * Counts every statement of a continuation (a segment launched by `RunExecutor.launch`, up to
 * its settle) under `continuation`, wherever it was launched from (a request, the worker).
 */
export function scopeContinuations(app: INestApplication, counter: QueryCounter): void {
  const executor = app.get(RunExecutor);
  const launch = executor.launch.bind(executor);
  executor.launch = (...args) => counter.within('continuation', () => launch(...args));
}

/**
 * Counts the subscriptions' re-checks of their tokens (per event, per operation) under
 * `subscriber`: with the in-memory bus they start inside the publish of a continuation's
 * event and would otherwise count as the continuation's own statements.
 */
export function scopeSubscriberChecks(app: INestApplication, counter: QueryCounter): void {
  const authenticator = app.get(Authenticator);
  const refresh = authenticator.refresh.bind(authenticator);
  const reload = authenticator.reload.bind(authenticator);
  authenticator.refresh = (user) => counter.within('subscriber', () => refresh(user));
  authenticator.reload = (user) => counter.within('subscriber', () => reload(user));
}

/** The statements of a scope in a window (0 when none were sent). */
export const scopeTotal = (count: QueryCount, scope: string): number => count.scopes[scope]?.total ?? 0;

/** Fails when any observed count is above the bound; the detail gives the spread. */
export function statementBoundCheck(name: string, observed: readonly number[], bound: number): Check {
  const max = observed.length ? Math.max(...observed) : NaN;
  const min = observed.length ? Math.min(...observed) : NaN;
  return {
    name: `${name} <= ${bound} (STATEMENTS_PER_DECISION_BOUNDS)`,
    ok: observed.length > 0 && max <= bound,
    detail: `${observed.length} measured, ${min}..${max}`,
  };
}
