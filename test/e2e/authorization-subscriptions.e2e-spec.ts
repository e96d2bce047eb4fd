// The authorisation suite, open streams (test/support/authorization-fixture.ts builds the
// fixture and says what the suite is): a revoked token's graphql-ws connections close at once
// (4401) and open no stream nor answer any operation any more; a grant removed ends the
// streams it allowed at their next event; an inbox stream carries only what its user may see.
import { describeAuthorization } from '../support/authorization-fixture';
import {
  CANCEL,
  codesIn,
  CONVERSATION_EVENTS,
  Json,
  refusalsIn,
  REVOKE,
  RUN_EVENTS,
  RUN_STEPS,
  RUN_VIEW,
  SEND,
  SET_SKILL,
  unauthenticatedIn,
  User,
} from '../support/authorization-rules';
import { createToken, INBOX_CHANGED, ProgressFrame, RUN_PROGRESS, sleep } from '../support/decisions';
import { Collected, collect, until, waitForRest } from '../support/runs';

describeAuthorization({}, (fx) => {
  const { gql, wsOf, editorRun, approve, conversationOf } = fx;

  describe('subscriptions lose access at once (revocation) or at the next event', () => {
    /** Waits until a frame about `runId` reached every stream (a subscription gives no other sign it listens). */
    async function listening(
      streams: Array<Collected<{ inboxChanged: { run: { id: string } } }>>,
      owner: User,
    ): Promise<void> {
      const seen = (p: string) => streams.every((s) => s.events.some((e) => e.inboxChanged.run.id === p));
      const probes: string[] = [];
      for (let attempt = 0; attempt < 20 && !probes.some(seen); attempt++) {
        probes.push(await editorRun(owner, 'Home', 'probe'));
        await until(() => probes.some(seen), 500, 'the probe').catch(() => undefined);
      }
      expect(probes.some(seen)).toBe(true);
    }

    /**
     * alice approves her run while `stream` watches it: once the stream ended, the run completed
     * and `settleMs` more passed, the statuses the stream delivered.
     */
    async function approvedWhileWatched(
      runId: string,
      stream: Collected<ProgressFrame>,
      settleMs: number,
    ): Promise<string[]> {
      await approve('alice', runId);
      await stream.done;
      expect(await waitForRest(fx.t, runId)).toBe('COMPLETED');
      await sleep(settleMs);
      return stream.events.map((e) => e.runProgress.status);
    }

    it('runProgress: alice’s token revoked while she watches her run; the server closes the connection at once (4401)', async () => {
      const runId = await editorRun('alice', 'About', 'watched');
      const second = await createToken(fx.t, fx.ids.users.alice!, 'alice');
      const stream = collect<ProgressFrame>(fx.t.ws(second.token), RUN_PROGRESS, { runId });
      await until(() => stream.events.length >= 1, 10_000, 'the snapshot');
      expect((await gql(REVOKE, { id: second.tokenId }, 'alice')).data).toEqual({ revokeApiToken: true });
      expect(await approvedWhileWatched(runId, stream, 200)).toEqual(['WAITING_FOR_APPROVAL']);
      expect(refusalsIn(stream.errors)).toEqual(['close 4401']);
      // the same token opens nothing any more
      const again = collect<ProgressFrame>(fx.t.ws(second.token), RUN_PROGRESS, { runId });
      await again.done;
      expect(again.events).toEqual([]);
    });

    it('conversationEvents: alice’s token revoked while she watches her conversation; its connection closes at once', async () => {
      const conversation = await conversationOf('alice', { title: 'watched' });
      const second = await createToken(fx.t, fx.ids.users.alice!, 'alice');
      const stream = collect(fx.t.ws(second.token), CONVERSATION_EVENTS, { id: conversation.id });
      const control = collect(wsOf('alice'), CONVERSATION_EVENTS, { id: conversation.id });
      // a skill change publishes a STATUS event and writes no message: it shows that both listen
      for (
        let attempt = 0;
        attempt < 20 && (stream.events.length === 0 || control.events.length === 0);
        attempt++
      ) {
        const skill = attempt % 2 === 0 ? 'tone-of-voice' : null;
        expect(
          (await gql(SET_SKILL, { input: { conversationId: conversation.id, skill } }, 'alice')).errors,
        ).toBeUndefined();
        await until(() => stream.events.length > 0 && control.events.length > 0, 500, 'both').catch(
          () => undefined,
        );
      }
      expect(stream.events.length).toBeGreaterThan(0);
      expect((await gql(REVOKE, { id: second.tokenId }, 'alice')).data).toEqual({ revokeApiToken: true });
      const delivered = stream.events.length;
      const controlled = control.events.length;
      const sent = await gql(
        SEND,
        { input: { conversationId: conversation.id, text: 'after the revocation' } },
        'alice',
      );
      expect(sent.errors).toBeUndefined();
      await stream.done;
      await until(() => control.events.length > controlled + 1, 10_000, 'the control stream');
      await sleep(200);
      expect(stream.events).toHaveLength(delivered);
      expect(refusalsIn(stream.errors)).toEqual(['close 4401']);
      expect(JSON.stringify(stream.events)).not.toContain('after the revocation');
      expect(JSON.stringify(control.events)).toContain('after the revocation');
      control.unsubscribe();
    });

    it('inboxChanged: carol’s token revoked while she watches her inbox; its connection closes at once', async () => {
      const second = await createToken(fx.t, fx.ids.users.carol!, 'carol');
      const stream = collect<{ inboxChanged: { run: { id: string } } }>(
        fx.t.ws(second.token),
        INBOX_CHANGED,
        {},
      );
      await listening([stream], 'alice');
      const delivered = stream.events.length;
      expect((await gql(REVOKE, { id: second.tokenId }, 'carol')).data).toEqual({ revokeApiToken: true });
      const runId = await editorRun('alice', 'Home', 'x');
      await stream.done;
      expect(stream.events).toHaveLength(delivered);
      expect(stream.events.map((e) => e.inboxChanged.run.id)).not.toContain(runId);
      expect(refusalsIn(stream.errors)).toEqual(['close 4401']);
    });

    it('a connection opened before its token was revoked opens no new stream on it', async () => {
      const runId = fx.runs.find((r) => r.owner === 'admin')!.id;
      const own = fx.conversations.find((c) => c.owner === 'admin')!;
      const second = await createToken(fx.t, fx.ids.users.admin!, 'admin');
      const client = fx.t.ws(second.token);
      // why: graphql-ws authenticates once per connection; a stream that stays open keeps this
      // connection (and the user it started with) alive across the revocation.
      const keeper = collect(client, INBOX_CHANGED, {});
      const before = collect<ProgressFrame>(client, RUN_PROGRESS, { runId });
      await until(() => before.events.length >= 1, 10_000, 'a stream on the connection');
      before.unsubscribe();
      expect((await gql(REVOKE, { id: second.tokenId }, 'admin')).data).toEqual({ revokeApiToken: true });
      const attempts: Array<[string, string, Json]> = [
        ['runProgress', RUN_PROGRESS, { runId }],
        ['runEvents', RUN_EVENTS, { runId }],
        ['inboxChanged', INBOX_CHANGED, {}],
        ['conversationEvents', CONVERSATION_EVENTS, { id: own.id }],
      ];
      for (const [what, query, variables] of attempts) {
        const stream = collect(client, query, variables);
        await stream.done;
        expect({ what, events: stream.events, codes: unauthenticatedIn(stream.errors) }).toEqual({
          what,
          events: [],
          codes: ['UNAUTHENTICATED'],
        });
      }
      keeper.unsubscribe();
    });

    // why: the same for queries and mutations sent over graphql-ws: a connection outlives its
    // token, so every operation over it is authorised again (platform/graphql, graphql.setup.ts).
    it('…and answers no query or mutation over it either (each operation is authorised again)', async () => {
      const runId = await editorRun('alice', 'Widget', 'over an old connection');
      const second = await createToken(fx.t, fx.ids.users.admin!, 'admin');
      const client = fx.t.ws(second.token);
      const keeper = collect(client, INBOX_CHANGED, {});
      const warm = collect(client, RUN_VIEW, { id: runId });
      await warm.done;
      expect(warm.events).toHaveLength(1);
      expect((await gql(REVOKE, { id: second.tokenId }, 'admin')).data).toEqual({ revokeApiToken: true });
      const read = collect(client, RUN_STEPS, { id: runId });
      await read.done;
      const cancel = collect(client, CANCEL, { id: runId });
      await cancel.done;
      keeper.unsubscribe();
      const [row] = await fx.t.dataSource.query('SELECT status FROM run WHERE id = $1', [runId]);
      // a refused nullable root field may answer { run: null }: never any data
      const withData = (events: unknown[]) =>
        events.filter((e) => Object.values(e as Record<string, unknown>).some((v) => v !== null));
      expect({
        read: withData(read.events),
        cancel: withData(cancel.events),
        codes: [...unauthenticatedIn(read.errors), ...unauthenticatedIn(cancel.errors)],
        status: row.status,
      }).toEqual({
        read: [],
        cancel: [],
        codes: ['UNAUTHENTICATED', 'UNAUTHENTICATED'],
        status: 'WAITING_FOR_APPROVAL',
      });
    });

    it('inboxChanged for users without the grant: their own runs only, never another’s', async () => {
      const watchers = ['alice', 'dave', 'erin'] as const;
      const streams = watchers.map((as) =>
        collect<{ inboxChanged: { run: { id: string } } }>(wsOf(as), INBOX_CHANGED, {}),
      );
      const bob = collect<{ inboxChanged: { detailVisible: boolean; run: { id: string } } }>(
        wsOf('bob'),
        INBOX_CHANGED,
        {},
      );
      const own: Record<string, string[]> = { alice: [], dave: [], erin: [] };
      // each watcher's own run shows its stream listens
      for (const [i, as] of watchers.entries()) {
        const stream = streams[i]!;
        for (
          let attempt = 0;
          attempt < 20 && !own[as]!.some((r) => stream.events.some((e) => e.inboxChanged.run.id === r));
          attempt++
        ) {
          own[as]!.push(await editorRun(as, 'Blog', 'mine'));
          await until(
            () => own[as]!.some((r) => stream.events.some((e) => e.inboxChanged.run.id === r)),
            500,
            as,
          ).catch(() => undefined);
        }
      }
      const carols = await editorRun('carol', 'Blog', 'not yours');
      await until(
        () => bob.events.some((e) => e.inboxChanged.run.id === carols),
        10_000,
        'carol’s run in bob’s inbox',
      );
      expect(bob.events.find((e) => e.inboxChanged.run.id === carols)!.inboxChanged.detailVisible).toBe(
        false,
      );
      for (const [i, as] of watchers.entries()) {
        const seen = streams[i]!.events.map((e) => e.inboxChanged.run.id);
        expect({ as, foreign: seen.filter((r) => !own[as]!.includes(r)) }).toEqual({ as, foreign: [] });
        expect(seen.length).toBeGreaterThan(0);
        expect(streams[i]!.errors).toEqual([]);
        streams[i]!.unsubscribe();
      }
      bob.unsubscribe();
    });

    it('bob’s group loses AGENT_APPROVE while he watches alice’s waiting run: the next event ends his stream', async () => {
      const runId = await editorRun('alice', 'Products', 'watched by bob');
      const progress = collect<ProgressFrame>(wsOf('bob'), RUN_PROGRESS, { runId });
      const inbox = collect<{ inboxChanged: { run: { id: string } } }>(wsOf('bob'), INBOX_CHANGED, {});
      await until(() => progress.events.length >= 1, 10_000, 'bob’s snapshot');
      await listening([inbox], 'alice');
      const [{ grants }] = await fx.t.dataSource.query(
        `SELECT grants FROM access_group WHERE name = 'approvers'`,
      );
      expect(grants).toEqual(['AGENT_APPROVE']);
      await fx.t.dataSource.query(
        `UPDATE access_group SET grants = array_remove(grants, 'AGENT_APPROVE') WHERE name = 'approvers'`,
      );
      try {
        // why: per-event checks share one lookup per token for 250 ms (TokenAuthenticator); a
        // grant changed in the database (there is no API for it) is seen once that has passed.
        await sleep(400);
        expect((await gql('{ viewer { mayDecideApprovals } }', {}, 'bob')).data).toEqual({
          viewer: { mayDecideApprovals: false },
        });
        const before = inbox.events.length;
        expect(await approvedWhileWatched(runId, progress, 300)).toEqual(['WAITING_FOR_APPROVAL']);
        expect(codesIn(progress.errors)).toEqual(['FORBIDDEN']);
        // his inbox stream hears nothing more of alice's run
        expect(inbox.events.slice(before).map((e) => e.inboxChanged.run.id)).not.toContain(runId);
        // and a new stream is refused at its start
        const again = collect<ProgressFrame>(wsOf('bob'), RUN_PROGRESS, { runId });
        await again.done;
        expect({ events: again.events, codes: codesIn(again.errors) }).toEqual({
          events: [],
          codes: ['NOT_FOUND'],
        });
      } finally {
        await fx.t.dataSource.query(`UPDATE access_group SET grants = $1 WHERE name = 'approvers'`, [grants]);
        inbox.unsubscribe();
      }
    });
  });
});
