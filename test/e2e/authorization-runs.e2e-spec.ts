// The authorisation suite, runs (test/support/authorization-fixture.ts builds the fixture and
// says what the suite is): every demo user reads, lists, cancels, decides and watches runs that
// are not theirs by id: hidden (null or NOT_FOUND) without access, FORBIDDEN where they may
// know the run but not do this, decisions without the arguments for a grant holder; nothing
// in the database changes.
import { randomUUID } from 'node:crypto';
import { describeAuthorization } from '../support/authorization-fixture';
import {
  CANCEL,
  codesIn,
  expectHidden,
  expectRefused,
  GRANT_HOLDERS,
  Json,
  NON_ADMINS,
  RUN_EVENTS,
  RUN_STEPS,
  RUN_VIEW,
  runAccessOf,
  shapeOf,
  unauthenticatedIn,
  User,
  USERS,
} from '../support/authorization-rules';
import { APPROVE, DENY, ProgressFrame, RUN_PROGRESS, SUBMIT } from '../support/decisions';
import { collect, until } from '../support/runs';

const RUN_ANSWER = `query($id: ID!) { run(id: $id) { id answer } }`;
const RUNS = `query($filter: RunFilter) { runs(filter: $filter, first: 200) { totalCount nodes { id owner { username } } } }`;
const INBOX = `{ inbox { detailVisible run { id owner { username } pending { calls { arguments } } } } }`;
// why: a small page of steps: the schema's defaults nested (50 runs × 100 steps) are over the cost limit.
const INBOX_STEPS = `{ inbox { run { id steps(first: 10) { nodes { kind } } } } }`;

describeAuthorization({}, (fx) => {
  const { gql, wsOf, unchanged, foreignRuns, editor } = fx;

  it('the fixture: the chat turn of alice’s conversation is a run owned by alice, waiting', async () => {
    const [row] = await fx.t.dataSource.query(
      `SELECT u.username, r.status, r.process_pin FROM run r JOIN app_user u ON u.id = r.owner_id WHERE r.id = $1`,
      [fx.runs[1]!.id],
    );
    expect(row).toEqual({ username: 'alice', status: 'WAITING_FOR_APPROVAL', process_pin: null });
    expect(fx.runs[1]!.digest).toBe(fx.conversations[0]!.digest);
  });

  describe('runs by id', () => {
    it.each(USERS)(
      'run(id) as %s: null where they may neither read nor decide; no arguments without detail',
      async (as) => {
        for (const run of foreignRuns(as)) {
          const res = await gql<{
            run: { id: string; owner: { username: string }; pending: Json | null } | null;
          }>(RUN_VIEW, { id: run.id }, as);
          const what = `${as} reads ${run.name}`;
          const access = runAccessOf(as, run.owner);
          if (access === 'none') {
            expectHidden(res, 'run', what);
            expect(shapeOf(res)).toEqual(shapeOf(await gql(RUN_VIEW, { id: randomUUID() }, as)));
            continue;
          }
          expect({ what, errors: res.errors }).toEqual({ what, errors: undefined });
          expect(res.data!.run).toMatchObject({ id: run.id, owner: { username: run.owner } });
          const calls = (res.data!.run!.pending?.calls ?? []) as Array<{ arguments: unknown }>;
          if (run.status.startsWith('WAITING_')) expect(calls.length).toBeGreaterThan(0);
          for (const call of calls) {
            if (access === 'decide')
              expect({ what, arguments: call.arguments }).toEqual({ what, arguments: null });
            else expect(call.arguments).not.toBeNull();
          }
        }
      },
    );

    it.each(USERS)(
      'Run.steps and Run.answer as %s: FORBIDDEN without detail access, never content',
      async (as) => {
        for (const run of foreignRuns(as)) {
          const what = `${as} reads the steps of ${run.name}`;
          const steps = await gql<{ run: { steps: { nodes: unknown[] } | null } | null }>(
            RUN_STEPS,
            { id: run.id },
            as,
          );
          const answer = await gql<{ run: { id: string; answer: string | null } | null }>(
            RUN_ANSWER,
            { id: run.id },
            as,
          );
          switch (runAccessOf(as, run.owner)) {
            case 'none':
              expectHidden(steps, 'run', what);
              expectHidden(answer, 'run', what);
              break;
            case 'decide':
              // the refused field alone is null; the run around it arrives
              expect({ what, codes: codesIn(steps.errors), data: steps.data }).toEqual({
                what,
                codes: ['FORBIDDEN'],
                data: { run: { id: run.id, steps: null } },
              });
              expect({ what, codes: codesIn(answer.errors), data: answer.data }).toEqual({
                what,
                codes: ['FORBIDDEN'],
                data: { run: { id: run.id, answer: null } },
              });
              break;
            case 'detail': {
              const [{ n }] = await fx.t.dataSource.query(
                'SELECT count(*)::int AS n FROM run_step WHERE run_id = $1',
                [run.id],
              );
              expect({ what, errors: steps.errors, count: steps.data!.run!.steps!.nodes.length }).toEqual({
                what,
                errors: undefined,
                count: n,
              });
              expect(answer.errors).toBeUndefined();
              break;
            }
          }
        }
      },
    );

    it.each(USERS)('runs(filter: { ownerId }) as %s: own runs only (admins: anyone’s)', async (as) => {
      const owners = USERS.filter((u) => u !== as);
      for (const owner of owners) {
        const res = await gql<{
          runs: { totalCount: number; nodes: Array<{ id: string; owner: { username: string } }> };
        }>(RUNS, { filter: { ownerId: fx.ids.users[owner] } }, as);
        expect(res.errors).toBeUndefined();
        if (as === 'admin') {
          const [{ n }] = await fx.t.dataSource.query(
            'SELECT count(*)::int AS n FROM run WHERE owner_id = $1',
            [fx.ids.users[owner]],
          );
          expect(res.data!.runs.totalCount).toBe(n);
          expect(res.data!.runs.nodes.every((r) => r.owner.username === owner)).toBe(true);
        } else {
          expect({ owner, runs: res.data!.runs }).toEqual({ owner, runs: { totalCount: 0, nodes: [] } });
        }
      }
      if (as !== 'admin') {
        for (const filter of [null, { configurationId: editor() }, { status: ['WAITING_FOR_APPROVAL'] }]) {
          const own = await gql<{ runs: { nodes: Array<{ owner: { username: string } }> } }>(
            RUNS,
            { filter },
            as,
          );
          expect(own.data!.runs.nodes.map((r) => r.owner.username).filter((u) => u !== as)).toEqual([]);
        }
      }
    });

    it.each(USERS)(
      'inbox as %s: others’ runs only with the grant, and then without arguments or steps',
      async (as) => {
        const res = await gql<{
          inbox: Array<{
            detailVisible: boolean;
            run: { id: string; owner: { username: string }; pending: Json };
          }>;
        }>(INBOX, {}, as);
        expect(res.errors).toBeUndefined();
        const items = res.data!.inbox;
        const waitingForeign = foreignRuns(as).filter((r) => r.status.startsWith('WAITING_'));
        const listed = new Set(items.map((i) => i.run.id));
        for (const run of waitingForeign) {
          expect({ run: run.name, listed: listed.has(run.id) }).toEqual({
            run: run.name,
            listed: runAccessOf(as, run.owner) !== 'none',
          });
        }
        for (const item of items) {
          if (item.run.owner.username === as) continue;
          const access = runAccessOf(as, item.run.owner.username as User);
          expect(access).not.toBe('none');
          expect(item.detailVisible).toBe(access === 'detail');
          const calls = (item.run.pending as { calls: Array<{ arguments: unknown }> }).calls;
          if (access === 'decide') expect(calls.map((c) => c.arguments)).toEqual(calls.map(() => null));
        }
        const steps = await gql(INBOX_STEPS, {}, as);
        const foreign = items.some((i) => i.run.owner.username !== as);
        if (GRANT_HOLDERS.has(as) && foreign) {
          expect(new Set(codesIn(steps.errors))).toEqual(new Set(['FORBIDDEN']));
        } else {
          expect(steps.errors).toBeUndefined();
        }
      },
    );

    it.each(NON_ADMINS)(
      'cancelRun as %s: NOT_FOUND, or FORBIDDEN for a grant holder; nothing changes',
      async (as) => {
        await unchanged(async () => {
          for (const run of foreignRuns(as)) {
            const res = await gql(CANCEL, { id: run.id }, as);
            const access = runAccessOf(as, run.owner);
            expectRefused(res, access === 'none' ? 'NOT_FOUND' : 'FORBIDDEN', `${as} cancels ${run.name}`);
            if (access === 'none') {
              expect(shapeOf(res)).toEqual(shapeOf(await gql(CANCEL, { id: randomUUID() }, as)));
            }
          }
        });
      },
    );

    it.each(NON_ADMINS)(
      'approveRun, denyRun, submitRunInput as %s: NOT_FOUND without access; nothing changes',
      async (as) => {
        await unchanged(async () => {
          for (const run of foreignRuns(as)) {
            const access = runAccessOf(as, run.owner);
            const attempts: Array<[string, string, Json]> = [
              ['approveRun', APPROVE, { runId: run.id, turnDigest: run.digest }],
              ['denyRun', DENY, { runId: run.id, turnDigest: run.digest, reason: 'SKIP' }],
              [
                'submitRunInput',
                SUBMIT,
                { runId: run.id, turnDigest: run.digest, values: { tone: 'formal' } },
              ],
            ];
            for (const [operation, query, input] of attempts) {
              const needs = operation === 'submitRunInput' ? 'WAITING_FOR_INPUT' : 'WAITING_FOR_APPROVAL';
              let expected: string;
              if (access === 'none') expected = 'NOT_FOUND';
              // a grant holder may decide it: only a decision the run does not wait for is refused here
              else if (run.status !== needs) expected = 'RUN_NOT_WAITING';
              else continue;
              const res = await gql(query, { input }, as);
              expectRefused(res, expected, `${as}: ${operation} on ${run.name}`);
              if (access === 'none') {
                const ghost = await gql(query, { input: { ...input, runId: randomUUID() } }, as);
                expect(shapeOf(res)).toEqual(shapeOf(ghost));
              }
            }
          }
        });
      },
    );

    it.each(NON_ADMINS)(
      'runProgress as %s: NOT_FOUND without access; counts only with the grant',
      async (as) => {
        for (const run of foreignRuns(as)) {
          const what = `${as} watches ${run.name}`;
          const stream = collect<ProgressFrame>(wsOf(as), RUN_PROGRESS, { runId: run.id });
          if (runAccessOf(as, run.owner) === 'none') {
            await stream.done;
            expect({ what, events: stream.events, codes: unauthenticatedIn(stream.errors) }).toEqual({
              what,
              events: [],
              codes: ['NOT_FOUND'],
            });
            continue;
          }
          await until(() => stream.events.length >= 1, 10_000, what);
          const [row] = await fx.t.dataSource.query(
            'SELECT step_count, status, turn FROM run WHERE id = $1',
            [run.id],
          );
          expect({ what, first: stream.events[0] }).toEqual({
            what,
            first: {
              runProgress: {
                kind: 'PROGRESS',
                runId: run.id,
                stepCount: row.step_count,
                status: row.status,
                turn: row.turn,
                keepAlive: false,
              },
            },
          });
          expect(stream.errors).toEqual([]);
          stream.unsubscribe();
        }
      },
    );

    it.each(NON_ADMINS)(
      'runEvents as %s: FORBIDDEN (admins only), on own, foreign and unknown runs alike',
      async (as) => {
        const own = await gql<{ runs: { nodes: Array<{ id: string }> } }>(RUNS, { filter: null }, as);
        const targets = [
          ...foreignRuns(as).map((r) => r.id),
          ...own.data!.runs.nodes.map((r) => r.id).slice(0, 1),
        ];
        for (const runId of targets) {
          const stream = collect(wsOf(as), RUN_EVENTS, { runId });
          await stream.done;
          expect({ runId, events: stream.events, codes: codesIn(stream.errors) }).toEqual({
            runId,
            events: [],
            codes: ['FORBIDDEN'],
          });
        }
      },
    );
  });
});
