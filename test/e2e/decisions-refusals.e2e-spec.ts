import { EDITOR_ROUNDS, QUESTION_ROUNDS } from '../../src/demo/demo-data';
import { DecisionsService } from '../../src/modules/approvals';
import { runAccess } from '../../src/modules/runs';
import { Authenticator } from '../../src/platform/auth/authenticator';
import { RequestContext } from '../../src/platform/auth/request-context';
import { Refusal } from '../../src/common/refusal';
import {
  decide,
  digestOf,
  effects,
  expectDecisionsRefused,
  expectRefusedUnchanged,
  pendingOf,
  receiptOf,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { refusalRuns } from '../support/refusals';
import { waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

/**
 * One test (at least) per refusal code of checks 1-12 of docs/decisions.md: the code, and
 * nothing changed (run status, steps, decision rows, page text) except the named side effect.
 * The gates of checks 13-14 and idempotency are in decisions-gates.e2e-spec.ts.
 */
describe('decisions: refusals change nothing', () => {
  const { t, ids } = useTestApp();

  const { editorCopy, editorRun, pageOf } = refusalRuns({ t, ids });

  describe('NOT_FOUND (check 1)', () => {
    it('dave (no grant, not the owner) on alice’s run: as for a run that does not exist', async () => {
      const runId = await editorRun('About');
      const { digest } = await expectDecisionsRefused(
        t,
        runId,
        'NOT_FOUND',
        [
          ['approve', 'dave'],
          ['deny', 'dave'],
        ],
        pageOf('About'),
      );
      const ghost = await decide(t, 'approve', 'dave', {
        runId: '00000000-0000-4000-8000-000000000000',
        turnDigest: digest,
      });
      expect(errorCode(ghost)).toBe('NOT_FOUND');
      expect(ghost.errors![0]!.message).toBe(
        (await decide(t, 'approve', 'dave', { runId, turnDigest: digest })).errors![0]!.message,
      );
      // dave cannot even tell the run exists
      expect(
        (await t.gql<{ run: unknown }>(`query($id: ID!) { run(id: $id) { id } }`, { id: runId }, 'dave'))
          .data,
      ).toEqual({ run: null });
    });
  });

  describe('FORBIDDEN (check 2)', () => {
    it('is unreachable with the access model: every demo user who may read a run may decide it', async () => {
      // The core table (decision-checks.spec.ts) covers the code itself; here: detail implies decide.
      const authenticator = t.app.get(Authenticator);
      const aliceId = Number(ids.users.alice);
      for (const [name, token] of Object.entries(t.tokens)) {
        const user = await authenticator.authenticate(`Bearer ${token}`);
        expect(user).not.toBeNull();
        for (const ownerId of [aliceId, user!.id]) {
          const access = runAccess(user!, { ownerId });
          expect({ name, ownerId, impliesDecide: !access.detail || access.decide }).toEqual({
            name,
            ownerId,
            impliesDecide: true,
          });
        }
      }
    });
  });

  describe('RUN_NOT_WAITING (check 3)', () => {
    it('approve (and deny) an input pause', async () => {
      const runId = await startResting(
        t,
        'alice',
        { configurationId: ids.configurations['demo-question'], prompt: 'Ask me' },
        'WAITING_FOR_INPUT',
      );
      const digest = await digestOf(t, runId);
      const before = await effects(t, runId);
      for (const kind of ['approve', 'deny'] as const) {
        const res = await decide(t, kind, 'alice', { runId, turnDigest: digest });
        await expectRefusedUnchanged(t, res, 'RUN_NOT_WAITING', runId, before);
        expect(res.errors![0]!.extensions!.status).toBe('WAITING_FOR_INPUT');
      }
    });

    it('submit input to an approval pause', async () => {
      const runId = await editorRun('Widget');
      const before = await effects(t, runId, pageOf('Widget'));
      const res = await decide(t, 'submit', 'alice', {
        runId,
        turnDigest: await digestOf(t, runId),
        values: { tone: 'formal' },
      });
      await expectRefusedUnchanged(t, res, 'RUN_NOT_WAITING', runId, before, pageOf('Widget'));
    });

    it('approve a completed run', async () => {
      const runId = await editorRun('Launch');
      const digest = await digestOf(t, runId);
      receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: digest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const before = await effects(t, runId, pageOf('Launch'));
      expect(before.decisions).toBe(1);
      for (const as of ['carol', 'alice', 'admin']) {
        const res = await decide(t, 'approve', as, { runId, turnDigest: digest });
        await expectRefusedUnchanged(t, res, 'RUN_NOT_WAITING', runId, before, pageOf('Launch'));
      }
    });
  });

  describe('PROCESS_RUN_DECIDED_IN_CHAT (check 4)', () => {
    it('a process run: its owner on the API surface and bob are both refused', async () => {
      const runId = await editorRun('About');
      await t.dataSource.query(`UPDATE run SET process_pin = '{"skillId":1}' WHERE id = $1`, [runId]);
      await expectDecisionsRefused(
        t,
        runId,
        'PROCESS_RUN_DECIDED_IN_CHAT',
        [
          ['approve', 'alice'],
          ['deny', 'alice'],
          ['approve', 'bob'],
          ['deny', 'admin'],
        ],
        pageOf('About'),
      );
      const inbox = await t.gql<{ inbox: Array<{ decidableHere: boolean; run: { id: string } }> }>(
        `{ inbox { decidableHere run { id } } }`,
        {},
        'bob',
      );
      expect(inbox.data!.inbox.find((i) => i.run.id === runId)).toEqual({
        decidableHere: false,
        run: { id: runId },
      });
    });
  });

  describe('CONFIGURATION_GONE (check 5)', () => {
    it('the configuration was deleted after the run suspended', async () => {
      const configurationId = await editorCopy();
      const runId = await editorRun('Products', configurationId);
      await t.dataSource.query('UPDATE configuration SET deleted_at = now() WHERE id = $1', [
        configurationId,
      ]);
      await expectDecisionsRefused(
        t,
        runId,
        'CONFIGURATION_GONE',
        [
          ['approve', 'bob'],
          ['deny', 'alice'],
        ],
        pageOf('Products'),
      );
    });
  });

  describe('CONFIGURATION_INACTIVE (check 6)', () => {
    it('deactivated after the suspend: approve AND deny refused; reactivated, the decision works', async () => {
      const configurationId = await editorCopy();
      const runId = await editorRun('Blog', configurationId);
      await t.dataSource.query('UPDATE configuration SET is_active = false WHERE id = $1', [configurationId]);
      const { digest, before } = await expectDecisionsRefused(
        t,
        runId,
        'CONFIGURATION_INACTIVE',
        [
          ['approve', 'bob'],
          ['deny', 'bob'],
          ['deny', 'alice'],
        ],
        pageOf('Blog'),
      );
      await t.dataSource.query('UPDATE configuration SET is_active = true WHERE id = $1', [configurationId]);
      receiptOf(await decide(t, 'deny', 'alice', { runId, turnDigest: digest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect((await effects(t, runId, pageOf('Blog'))).page).toEqual(before.page);
    });
  });

  describe('PROCESS_STOPPED_SECOND_APPROVER (check 7)', () => {
    it('a process run whose configuration now needs a second approver is failed, nothing else', async () => {
      const configurationId = await editorCopy();
      const runId = await editorRun('Widget', configurationId);
      await t.dataSource.query(`UPDATE run SET process_pin = '{"skillId":1}' WHERE id = $1`, [runId]);
      await t.dataSource.query('UPDATE configuration SET require_second_approver = true WHERE id = $1', [
        configurationId,
      ]);
      const digest = await digestOf(t, runId);
      const before = await effects(t, runId, pageOf('Widget'));

      // On the API surface check 4 wins: nothing happens.
      const api = await decide(t, 'approve', 'alice', { runId, turnDigest: digest });
      await expectRefusedUnchanged(t, api, 'PROCESS_RUN_DECIDED_IN_CHAT', runId, before, pageOf('Widget'));

      // In the chat (its initiator): the process is stopped. The conversation surface is not
      // built yet, so the service is called the way the chat will call it.
      const alice = await t.app.get(Authenticator).authenticate(`Bearer ${t.tokens.alice}`);
      const chat = new RequestContext(alice).withSurface('chat');
      const refusal = await t.app
        .get(DecisionsService)
        .decide(chat, { kind: 'APPROVE', runId, turnDigest: digest })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(refusal).toBeInstanceOf(Refusal);
      expect((refusal as Refusal).code).toBe('PROCESS_STOPPED_SECOND_APPROVER');

      const after = await effects(t, runId, pageOf('Widget'));
      expect(after).toEqual({
        ...before,
        status: 'FAILED',
        terminationReason: 'APPROVAL_DENIED',
        checkpoint: null,
      });
      const run = await t.gql<{ run: { status: string; terminationReason: string; pending: unknown } }>(
        `query($id: ID!) { run(id: $id) { status terminationReason pending { turn } } }`,
        { id: runId },
        'alice',
      );
      expect(run.data!.run).toEqual({
        status: 'FAILED',
        terminationReason: 'APPROVAL_DENIED',
        pending: null,
      });
      // a second try finds nothing waiting
      const again = await t.app
        .get(DecisionsService)
        .decide(chat, { kind: 'DENY', runId, turnDigest: digest })
        .catch((e: Refusal) => e.code);
      expect(again).toBe('RUN_NOT_WAITING');
      expect(await effects(t, runId, pageOf('Widget'))).toEqual(after);
    });
  });

  describe('SELF_APPROVAL_DENIED (check 8)', () => {
    it('the initiator approves a demo-four-eyes run', async () => {
      const runId = await editorRun('Home', ids.configurations['demo-four-eyes']);
      const before = await effects(t, runId, pageOf('Home'));
      const res = await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) });
      await expectRefusedUnchanged(t, res, 'SELF_APPROVAL_DENIED', runId, before, pageOf('Home'));
    });
  });

  describe('INVALID_INPUT (check 9)', () => {
    it.each([
      ['an unknown enum value', { tone: 'loud' }, '/tone'],
      ['a missing required field', {}, '/tone'],
    ])('%s: the failing paths, nothing claimed or recorded', async (_what, values, path) => {
      const runId = await startResting(
        t,
        'alice',
        { configurationId: ids.configurations['demo-question'], prompt: 'Ask me' },
        'WAITING_FOR_INPUT',
      );
      const digest = await digestOf(t, runId);
      const before = await effects(t, runId);
      const res = await decide(t, 'submit', 'alice', { runId, turnDigest: digest, values });
      await expectRefusedUnchanged(t, res, 'INVALID_INPUT', runId, before);
      expect(res.errors![0]!.extensions!.paths).toEqual([path]);
      expect(JSON.stringify(res.errors![0]!.extensions!.problems)).toMatch(/tone|required|allowed/);
      expect(before).toMatchObject({ status: 'WAITING_FOR_INPUT', decisions: 0 });
      // the same turn then takes valid values
      receiptOf(
        await decide(t, 'submit', 'alice', { runId, turnDigest: digest, values: { tone: 'casual' } }),
      );
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect((await effects(t, runId)).kinds.filter((k) => k === 'INPUT')).toHaveLength(1);
    });
  });

  describe('STATE_UNREADABLE (check 10)', () => {
    it('a damaged checkpoint: the run keeps waiting; repaired, the decision works', async () => {
      const runId = await editorRun('About');
      const digest = await digestOf(t, runId);
      const [{ checkpoint }] = await t.dataSource.query('SELECT checkpoint FROM run WHERE id = $1', [runId]);
      const at = Math.floor(checkpoint.length / 2);
      const flipped = checkpoint[at] === 'A' ? 'B' : 'A';
      const damaged = `${checkpoint.slice(0, at)}${flipped}${checkpoint.slice(at + 1)}`;
      await t.dataSource.query('UPDATE run SET checkpoint = $2 WHERE id = $1', [runId, damaged]);
      const before = await effects(t, runId, pageOf('About'));
      for (const [kind, as] of [
        ['approve', 'bob'],
        ['deny', 'alice'],
      ] as const) {
        const res = await decide(t, kind, as, { runId, turnDigest: digest });
        await expectRefusedUnchanged(t, res, 'STATE_UNREADABLE', runId, before, pageOf('About'));
      }
      expect(before.status).toBe('WAITING_FOR_APPROVAL');
      await t.dataSource.query('UPDATE run SET checkpoint = $2 WHERE id = $1', [runId, checkpoint]);
      receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest: digest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      expect((await effects(t, runId, pageOf('About'))).page!.seo_title).toBe('A sharper SEO title');
    });
  });

  describe('ALREADY_RESUMING (check 11)', () => {
    it('two concurrent approvals: one wins, the other is refused; one continuation', async () => {
      const runId = await editorRun('Products');
      const digest = await digestOf(t, runId);
      const results = await Promise.all(
        ['bob', 'carol'].map((as) => decide(t, 'approve', as, { runId, turnDigest: digest })),
      );
      const won = results.filter((r) => !r.errors);
      const refused = results.filter((r) => r.errors).map(errorCode);
      expect(won).toHaveLength(1);
      expect(refused).toEqual(['ALREADY_RESUMING']);
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const after = await effects(t, runId, pageOf('Products'));
      expect(after.decisions).toBe(1);
      expect(after.kinds.filter((k) => k === 'APPROVAL')).toHaveLength(1);
      expect(after.kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
    });
  });

  describe('STALE_TURN (check 12)', () => {
    it('a digest that is not the pending turn’s: released, nothing recorded', async () => {
      const runId = await editorRun('Launch');
      const before = await effects(t, runId, pageOf('Launch'));
      for (const digest of ['0'.repeat(64), 'not-a-digest']) {
        const res = await decide(t, 'approve', 'bob', { runId, turnDigest: digest });
        await expectRefusedUnchanged(t, res, 'STALE_TURN', runId, before, pageOf('Launch'));
      }
      const deny = await decide(t, 'deny', 'alice', { runId, turnDigest: 'f'.repeat(64) });
      await expectRefusedUnchanged(t, deny, 'STALE_TURN', runId, before, pageOf('Launch'));
      // the run was released, not stuck: the right digest still works
      expect((await pendingOf(t, runId))!.turn).toBe(1);
      receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest: await digestOf(t, runId) }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
    });

    it('the real case: turn 1’s digest once the run waits on turn 2', async () => {
      const configurationId = await upsertConfiguration(t, {
        identifier: 'two-writes',
        maxIterations: 6,
        providerOptions: {
          rounds: [
            { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Round one SEO' } }] },
            { toolCalls: [{ name: 'pages_update', arguments: { title: 'Round two title' } }] },
            { text: 'Both changes are done.' },
          ],
        },
      });
      const runId = await editorRun('Widget', configurationId);
      const turn1 = await digestOf(t, runId);
      receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest: turn1 }));
      expect(await waitForRest(t, runId)).toBe('WAITING_FOR_APPROVAL');
      const pending = await pendingOf(t, runId);
      expect(pending!.turn).toBe(2);
      expect(pending!.turnDigest).not.toBe(turn1);
      const before = await effects(t, runId, pageOf('Widget'));
      expect(before).toMatchObject({ turn: 2, decisions: 1 });
      expect(before.page!.seo_title).toBe('Round one SEO');
      for (const [kind, as] of [
        ['approve', 'bob'],
        ['approve', 'alice'],
        ['deny', 'carol'],
      ] as const) {
        const res = await decide(t, kind, as, { runId, turnDigest: turn1 });
        await expectRefusedUnchanged(t, res, 'STALE_TURN', runId, before, pageOf('Widget'));
        expect(res.errors![0]!.extensions!.turn).toBe(2);
      }
      receiptOf(await decide(t, 'approve', 'bob', { runId, turnDigest: pending!.turnDigest }));
      expect(await waitForRest(t, runId)).toBe('COMPLETED');
      const done = await effects(t, runId, pageOf('Widget'));
      expect(done.page!.title).toBe('Round two title');
      expect(done.decisions).toBe(2);
    });
  });

  it('QUESTION_ROUNDS and EDITOR_ROUNDS are what the demo seeds (the copies above rely on it)', async () => {
    const rows: Array<{ identifier: string; provider_options: unknown }> = await t.dataSource.query(
      `SELECT identifier, provider_options FROM configuration WHERE identifier IN ('demo-editor', 'demo-question')`,
    );
    const byId = Object.fromEntries(rows.map((r) => [r.identifier, r.provider_options]));
    expect(byId['demo-editor']).toEqual({ rounds: EDITOR_ROUNDS });
    expect(byId['demo-question']).toEqual({ rounds: QUESTION_ROUNDS });
  });
});
