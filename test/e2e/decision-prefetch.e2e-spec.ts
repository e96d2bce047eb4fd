import { Client } from 'pg';
import { DecisionsService } from '../../src/modules/approvals/application/decisions.service';
import { RunsService } from '../../src/modules/runs';
import { AccessGuard } from '../../src/platform/auth/access.guard';
import {
  APPROVE,
  decide,
  digestOf,
  effects,
  expectRefusedUnchanged,
  receiptOf,
  startResting,
} from '../support/decisions';
import { waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

/**
 * A decision's one read starts as soon as Apollo knows the operation (OperationPrefetch, in
 * docs/decisions.md "The checks, in order"): before Nest's guards run, read once, taken up by
 * the resolver; the guards and every check still decide, and a request they refuse changes
 * nothing. RATE_LIMIT_PER_MINUTE is low so the last case meets the rate limit.
 */
describe('decisions: the run read starts with the operation', () => {
  const LIMIT = 12;
  const { t, ids } = useTestApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  afterEach(() => jest.restoreAllMocks());

  const waiting = () =>
    startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Products,
    });

  /** The decision's read as node-postgres sends it (the run with its configuration joined). */
  const RUN_READ = /FROM run r LEFT JOIN configuration jc/;
  const textOf = (query: unknown): string =>
    typeof query === 'string' ? query : ((query as { text?: string } | null)?.text ?? '');

  /**
   * Watches, through call-through spies, each run read asked for (with its ids) and handed to
   * a connection ('sent'), each pass of the access guard and each decide; the returned function
   * lists them in the order they were called.
   */
  function watchOrder(): () => string[] {
    const sends = jest.spyOn(Client.prototype, 'query');
    const reads = jest.spyOn(t.app.get(RunsService), 'findRunsWith');
    const guards = jest.spyOn(AccessGuard.prototype, 'canActivate');
    const decides = jest.spyOn(t.app.get(DecisionsService), 'decide');
    return () =>
      [
        ...reads.mock.calls.map((c, i) => ({
          at: reads.mock.invocationCallOrder[i]!,
          what: `read ${[...c[0]].sort().join(',')}`,
        })),
        ...sends.mock.calls.flatMap((c, i) =>
          RUN_READ.test(textOf(c[0])) ? [{ at: sends.mock.invocationCallOrder[i]!, what: 'sent' }] : [],
        ),
        ...guards.mock.invocationCallOrder.map((at) => ({ at, what: 'guard' })),
        ...decides.mock.invocationCallOrder.map((at) => ({ at, what: 'decide' })),
      ]
        .sort((a, b) => a.at - b.at)
        .map((e) => e.what);
  }

  it('an approval reads its run before the guards admit it, once, and the resolver takes that read up', async () => {
    const runId = await waiting();
    const turnDigest = await digestOf(t, runId);
    const order = watchOrder();
    const res = await decide(t, 'approve', 'carol', { runId, turnDigest });
    expect(receiptOf(res).path).toBe('INLINE');
    // why: 'sent' before 'guard': the pool hands out its connection on a later tick, which the
    // prefetch lets come before the rest of the request's pipeline.
    expect(order()).toEqual([`read ${runId}`, 'sent', 'guard', 'decide']);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    expect((await effects(t, runId)).decisions).toBe(1);
  });

  it('two decisions in one operation read their runs once each and are both taken', async () => {
    const [a, b] = [await waiting(), await waiting()];
    const [da, db] = [await digestOf(t, a), await digestOf(t, b)];
    const order = watchOrder();
    const res = await t.gql<Record<string, { path: string }>>(
      `mutation($a: ApproveRunInput!, $b: DenyRunInput!) {
         a: approveRun(input: $a) { path } b: denyRun(input: $b) { path } }`,
      { a: { runId: a, turnDigest: da }, b: { runId: b, turnDigest: db } },
      'carol',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ a: { path: 'INLINE' }, b: { path: 'INLINE' } });
    const reads = order().filter((o) => o.startsWith('read'));
    expect(reads.flatMap((r) => r.slice(5).split(',')).sort()).toEqual([a, b].sort());
    // why: the first is sent at once; the loader sends the second after the first's answer
    // (decisions arriving together, docs/decisions.md), which may come after the guards.
    expect(order()[0]).toBe(`read ${a}`);
    expect(await waitForRest(t, a)).toBe('COMPLETED');
    expect((await effects(t, b)).decisions).toBe(1);
  });

  it('nothing is read for a request without a valid token, an id that is no UUID, or a query', async () => {
    const runId = await waiting();
    const turnDigest = await digestOf(t, runId);
    const before = await effects(t, runId);
    const order = watchOrder();
    const anonymous = await t.gql(APPROVE, { input: { runId, turnDigest } }, null);
    expect(anonymous.status).toBe(401);
    const malformed = await decide(t, 'approve', 'carol', { runId: 'not-a-uuid', turnDigest });
    expect(errorCode(malformed)).toBe('BAD_USER_INPUT');
    const query = await t.gql(`query($id: ID!) { run(id: $id) { id } }`, { id: runId }, 'carol');
    expect(query.errors).toBeUndefined();
    expect(order().filter((o) => o.startsWith('read') || o === 'sent')).toEqual([]);
    expect(await effects(t, runId)).toEqual(before);
  });

  it('a decision refused by a guard (the rate limit) is still refused, and changes nothing', async () => {
    const runId = await waiting();
    const turnDigest = await digestOf(t, runId);
    const before = await effects(t, runId);
    // why: dave has no grant on alice's run and spends his own budget; his last ones are refused.
    let res = await decide(t, 'approve', 'dave', { runId, turnDigest });
    for (let i = 0; i < LIMIT && errorCode(res) !== 'RATE_LIMITED'; i++) {
      res = await decide(t, 'approve', 'dave', { runId, turnDigest });
    }
    const order = watchOrder();
    await expectRefusedUnchanged(
      t,
      await decide(t, 'approve', 'dave', { runId, turnDigest }),
      'RATE_LIMITED',
      runId,
      before,
    );
    expect(order()).toEqual([`read ${runId}`, 'sent', 'guard']);
  });
});
